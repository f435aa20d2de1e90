/**
 * A record another revision of its format's reader sealed (docs/design.md §8, "A reader that
 * changes"). The case that made this real: builds before the v5 schema sealed an honest GSD
 * phase summary that claims complete as `partial` (the contract's sections asked of it), and
 * today's reader derives `success`. Such a record was an integrity failure (exit 3) although
 * nobody touched it. Now the direction of the difference decides:
 *   - stored worse than today's derivation: unverifiable, both readers named (exit 0; 1 with
 *     --strict);
 *   - stored better: exit 3, whatever revision the record names;
 *   - the witnesses' floor: exit 3, whatever revision the record names;
 *   - a record of this build's own revision: any difference is an edit (exit 3).
 * Each forgery below is appended through the real append path with the original's kept bytes,
 * as an agent with git access could.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, git, gitdir } from '../helpers/git.js';
import { forgeRecord } from '../helpers/forge.js';
import { allChecks, cliBinInProcess, makeUser, record, type User } from '../adversarial/helpers.js';
import { maxsim } from '../../src/formats/maxsim/index.js';

/** This build's maxsim reader revision, and one a newer ledger would name. */
const CURRENT = maxsim.readerRevision;
const NEWER = CURRENT + 1;

afterAll(cleanup);

const enc = (text: string) => new TextEncoder().encode(text);

/** A GSD-family phase summary as public projects write it: an opening status label, files. */
const SUMMARY = `# Phase 3 Plan 1: Config loader Summary

**Status:** ✓ Complete

## Key Files Created
- src/config.ts
`;

/** What the builds before v5 sealed for it: held at partial for the contract's sections. */
const OLDER_BUILD_REASONS = ['Key Decisions', 'Artifacts', 'Status', 'Deferred Items'].map(
  (section) => ({
    code: 'MAXSIM_MISSING_SECTION',
    message: `required section "${section}" is missing`,
    subject: section,
  }),
);

type Value = { [k: string]: any };
/** The record as a build before v5 wrote it: schema v2, no reader revision. */
function asOlderBuild(value: Value, effectiveStatus: string, reasons: unknown[]): void {
  value['schema'] = 'ledger.record/v2';
  delete value['observed'].readerRevision;
  value['observed'].ledgerVersion = '0.9.0';
  value['observed'].effectiveStatus = effectiveStatus;
  value['observed'].reasons = reasons;
}

let user: User;
let dir: string;
let summaryId: string;
let failingId: string;

beforeAll(async () => {
  user = makeUser();
  dir = gitdir({ files: { 'README.md': 'app\n' } });
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'config.ts'), 'export const config = {};\n');
  summaryId = (
    await record(user, dir, { from: { bytes: enc(SUMMARY), fileName: '03-01-SUMMARY.md' } })
  ).id;
  failingId = (await record(user, dir, { status: 'success', summary: 'x', witnesses: ['false'] }))
    .id;
});

async function verify(id: string, strict = false) {
  const result = await cliBinInProcess(user, dir, ['verify', id, ...(strict ? ['--strict'] : [])]);
  const checks = allChecks(result.json);
  const of = (check: string, subject: string) =>
    checks.find((c) => c.check === check && c.subject === subject);
  return {
    code: result.code,
    output: result.stdout + result.stderr,
    status: of('derive', 'observed.effectiveStatus'),
    reasons: of('derive', 'observed.reasons'),
    claim: checks.find((c) => c.check === 'status'),
  };
}

describe('a record another reader revision sealed', () => {
  it("today: the honest summary is a v5 record naming this build's reader revision, and verifies", async () => {
    const honest = await verify(summaryId, true);
    expect(honest.code, honest.output).toBe(0);
    expect(
      git(
        dir,
        'cat-file',
        '-p',
        `refs/ledger/log:records/${summaryId.slice(7, 9)}/${summaryId.slice(9)}/record`,
      ),
    ).toContain('ledger.record/v5');
    expect(honest.status?.verdict).toBe('verified');
  });

  it('an older build sealed it worse (partial; today success): unverifiable naming both, not an integrity failure; --strict fails it', async () => {
    const older = await forgeRecord(
      dir,
      summaryId,
      (v) => asOlderBuild(v, 'partial', OLDER_BUILD_REASONS),
      { keepEvidence: true },
    );
    const result = await verify(older);
    expect(result.code, result.output).toBe(0);
    expect(result.status?.verdict).toBe('unverifiable');
    expect(result.status?.detail).toMatch(
      /stored partial .*sealed by ledger 0\.9\.0, whose ledger\.record\/v2 record names no reader revision/,
    );
    expect(result.status?.detail).toContain(
      `revision ${CURRENT} of the maxsim reader, this build's, derives success`,
    );
    expect(result.reasons?.verdict).toBe('unverifiable');
    // The claim "complete" is refuted by the stored partial and upheld by today's success: it
    // is judged by neither alone.
    expect(result.claim?.verdict).toBe('unverifiable');
    expect(result.claim?.detail).toMatch(
      /effective partial .*success as this build's reader derives it/,
    );
    const strict = await verify(older, true);
    expect(strict.code, strict.output).toBe(1);
  });

  it('a record of an older build sealed better than today derives (success; today partial): exit 3', async () => {
    // A summary without a status is partial today; the forger says an older build sealed success.
    const plain = (
      await record(user, dir, {
        from: { bytes: enc(SUMMARY.replace('**Status:** ✓ Complete\n\n', '')), fileName: 'S.md' },
      })
    ).id;
    const forged = await forgeRecord(dir, plain, (v) => asOlderBuild(v, 'success', []), {
      keepEvidence: true,
    });
    const result = await verify(forged);
    expect(result.code, result.output).toBe(3);
    expect(result.status?.verdict).toBe('contradicted');
    expect(result.status?.detail).toMatch(/better than this build's reader derives is never taken/);
  });

  it("a v5 record naming this build's revision: any difference is an edit, even a worse status (exit 3)", async () => {
    const edited = await forgeRecord(
      dir,
      summaryId,
      (v) => {
        v['observed'].effectiveStatus = 'partial';
        v['observed'].reasons = OLDER_BUILD_REASONS;
      },
      { keepEvidence: true },
    );
    const result = await verify(edited);
    expect(result.code, result.output).toBe(3);
    expect(result.status?.detail).toMatch(/^stored partial, but the kept maxsim source/);
  });

  it('a v5 record naming a newer revision: worse is unverifiable with the advice to use a newer ledger; better is exit 3', async () => {
    const newerWorse = await forgeRecord(
      dir,
      summaryId,
      (v) => {
        v['observed'].readerRevision = NEWER;
        v['observed'].effectiveStatus = 'partial';
        v['observed'].reasons = OLDER_BUILD_REASONS;
      },
      { keepEvidence: true },
    );
    const worse = await verify(newerWorse);
    expect(worse.code, worse.output).toBe(0);
    expect(worse.status?.verdict).toBe('unverifiable');
    expect(worse.status?.detail).toContain(`sealed by revision ${NEWER} of the maxsim reader`);
    expect(worse.status?.detail).toMatch(/a newer ledger wrote it: verify with ledger .* or later/);

    const newerBetter = await forgeRecord(
      dir,
      failingId,
      (v) => {
        v['observed'].readerRevision = 99;
        v['observed'].effectiveStatus = 'success';
        v['observed'].reasons = [];
      },
      { keepEvidence: true },
    );
    const better = await verify(newerBetter);
    expect(better.code, better.output).toBe(3);
  });

  it("the witnesses' floor holds whatever the record names: a failed witness's reason dropped under an older build is exit 3", async () => {
    const dropped = await forgeRecord(dir, failingId, (v) => asOlderBuild(v, 'failed', []), {
      keepEvidence: true,
    });
    const result = await verify(dropped);
    expect(result.code, result.output).toBe(3);
    expect(result.status?.detail).toMatch(/witness results allow at most failed/);
  });

  it('same status, other reasons under an older build: the status verifies, the reasons are unverifiable', async () => {
    const reworded = await forgeRecord(
      dir,
      failingId,
      (v) => {
        const reasons = v['observed'].reasons as { message: string }[];
        asOlderBuild(v, 'failed', [
          ...reasons,
          { code: 'LEDGER_OLD_NOTE', message: 'a note an older reader gave' },
        ]);
      },
      { keepEvidence: true },
    );
    const result = await verify(reworded);
    expect(result.code, result.output).toBe(1); // the witness still failed: the claim is contradicted
    expect(result.status?.verdict).toBe('verified');
    expect(result.reasons?.verdict).toBe('unverifiable');
  });
});
