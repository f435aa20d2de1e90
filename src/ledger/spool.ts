/**
 * The spec test's spool (issue 22: every object the test suite writes is checked against
 * spec/ledger.cddl). When LEDGER_TEST_SPOOL names an absolute directory, each ledger object
 * ledger builds is also written there, as `<kind>-<64 hex of its id>`, after it was written to
 * the object database; test/helpers/spool-global.ts validates the directory when the run ends.
 *
 * The variable is as much the agent's as the user's (it sets the environment of its own runs),
 * so this may only ever add a copy of bytes already stored in the repository, which the agent
 * can read anyway: it reads nothing, replaces nothing (a new temporary file, hard-linked to its
 * name only when that name is free), follows no link at the final name, and swallows every
 * error, so what ledger records, prints and exits with is the same with the variable set or not.
 * Unset in normal use: then this is one environment lookup.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, unlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export type SpooledKind = 'record' | 'lifecycle-step' | 'log-entry' | 'signature' | 'attestation';

const ID = /^sha256:([0-9a-f]{64})$/;

export function spoolCopy(kind: SpooledKind, id: string, bytes: Uint8Array): void {
  const dir = process.env['LEDGER_TEST_SPOOL'];
  if (dir === undefined || dir === '' || !isAbsolute(dir)) return;
  const hex = ID.exec(id)?.[1];
  if (hex === undefined) return;
  // Written under a fresh name first, so a process killed mid-write (the crash tests) leaves a
  // temporary file the check skips, never a truncated object under its id.
  const temporary = join(dir, `.tmp-${process.pid}-${randomBytes(8).toString('hex')}`);
  try {
    writeFileSync(temporary, bytes, { flag: 'wx', mode: 0o600 });
    try {
      linkSync(temporary, join(dir, `${kind}-${hex}`));
    } catch {
      // Already spooled (the same object written twice), or the name is taken: keep what is there.
    } finally {
      unlinkSync(temporary);
    }
  } catch {
    // A copy that could not be made changes nothing ledger does.
  }
}
