/**
 * The spool behind "every object the suite writes matches spec/ledger.cddl" (issue 22): the
 * writers drop a copy of each ledger object they wrote (src/ledger/spool.ts), and the check at
 * the end of the run (test/spec/spool-check.ts) names every object the spec does not allow and
 * the rule it breaks. The spool variable is the agent's as much as the user's, so it is also
 * attacked here: it must never change what ledger does, read anything or replace anything.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Encoder } from 'cbor-x';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { encodeCanonical, toRecordId, type CborValue } from '../../src/canonical/index.js';
import { spoolCopy } from '../../src/ledger/spool.js';
import { CddlSchema } from '../helpers/cddl-validator.js';
import { git, gitdir, PROJECT_ROOT, tempDir } from '../helpers/git.js';
import { checkSpool } from './spool-check.js';

const schema = CddlSchema.load(join(PROJECT_ROOT, 'spec', 'ledger.cddl'));
const vectors = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'spec', 'vectors', 'objects.json'), 'utf8'),
) as { name: string; rule: string; hex: string; id: string }[];
const vector = (rule: string) => vectors.find((v) => v.rule === rule)!;

function spoolFile(dir: string, kind: string, bytes: Uint8Array): string {
  const name = `${kind}-${toRecordId(bytes).slice(7)}`;
  writeFileSync(join(dir, name), bytes);
  return name;
}

/** This process's spool for the run, put back after each test that points it elsewhere. */
let runSpool: string | undefined;
beforeEach(() => {
  runSpool = process.env['LEDGER_TEST_SPOOL'];
});
afterEach(() => {
  if (runSpool === undefined) delete process.env['LEDGER_TEST_SPOOL'];
  else process.env['LEDGER_TEST_SPOOL'] = runSpool;
});

describe('the check names every spooled object the spec does not allow, and the rule', () => {
  it('passes the golden vectors, each under its kind', () => {
    const dir = tempDir('spool-');
    const kind = (rule: string) =>
      rule.startsWith('record-') ? 'record' : rule.replace(/-v\d+$/, '');
    for (const v of vectors) spoolFile(dir, kind(v.rule), Buffer.from(v.hex, 'hex'));
    expect(checkSpool(dir, schema)).toEqual({
      counts: { record: 7, 'lifecycle-step': 1, 'log-entry': 1, attestation: 2, signature: 1 },
      problems: [],
      failed: 0,
    });
  });

  it('a record without a status, a log entry as a signature, non-canonical bytes, a name that is not the hash', () => {
    const dir = tempDir('spool-');
    const record = new Encoder({ useRecords: false }).decode(
      Buffer.from(vector('record-v2').hex, 'hex'),
    ) as { claims: Record<string, unknown> };
    delete record.claims['status'];
    const noStatus = spoolFile(dir, 'record', encodeCanonical(record as CborValue));
    const entry = Buffer.from(vector('log-entry').hex, 'hex');
    const entryAsSignature = spoolFile(dir, 'signature', entry);
    // cbor-x's own output: keys in insertion order, so not the canonical bytes.
    const loose = new Encoder({ useRecords: false }).encode({
      schema: 'ledger.log/v1',
      record: null,
      prev: [],
      height: 1,
    });
    const nonCanonical = spoolFile(dir, 'log-entry', loose);
    writeFileSync(join(dir, `log-entry-${'0'.repeat(64)}`), entry);
    writeFileSync(join(dir, 'notes.txt'), 'x');
    // A writer killed between writing and naming its copy: skipped, not reported.
    writeFileSync(join(dir, '.tmp-1-abcd'), entry.subarray(0, 3));
    const { problems } = checkSpool(dir, schema);
    const at = (name: string) => name.replace(/^([a-z-]+)-/, '$1 sha256:');
    expect(problems).toContain(
      `log-entry sha256:${'0'.repeat(64)} (rule log-entry): its bytes hash to ${toRecordId(entry)}`,
    );
    expect(problems).toContainEqual(
      expect.stringMatching(`^${at(nonCanonical)} \\(rule log-entry\\): not canonical CBOR: `),
    );
    expect(problems).toContain("notes.txt: not a spooled object's name (<kind>-<64 hex>)");
    expect(problems).toContain(
      `${at(noStatus)} (rule ledger-record) as record-v2: $.claims.status missing`,
    );
    expect(problems).toContain(
      `${at(entryAsSignature)} (rule signature): $.schema expected "ledger.signature/v1", got "ledger.log/v1"`,
    );
    expect(problems.filter((p) => p.startsWith('.tmp-'))).toEqual([]);
  });
});

describe('the writers spool what they wrote', () => {
  it('a record and its log entry, byte for byte as git holds them', async () => {
    const spool = tempDir('spool-');
    process.env['LEDGER_TEST_SPOOL'] = spool;
    const repo = gitdir();
    const { id, entryId } = await recordHandoff({
      cwd: repo,
      status: 'success',
      summary: 'spooled',
    });
    const path = `records/${id.slice(7, 9)}/${id.slice(9)}/record`;
    const stored = execFileSync('git', ['cat-file', 'blob', `refs/ledger/log:${path}`], {
      cwd: repo,
    });
    expect(readdirSync(spool).sort()).toEqual(
      [`record-${id.slice(7)}`, `log-entry-${entryId.slice(7)}`].sort(),
    );
    expect(readFileSync(join(spool, `record-${id.slice(7)}`)).equals(stored)).toBe(true);
    expect(checkSpool(spool, schema).problems).toEqual([]);
  });
});

describe('the spool variable is no door (the agent sets the environment of its runs)', () => {
  const bytes = Buffer.from(vector('log-entry').hex, 'hex');
  const id = vector('log-entry').id;

  it('never replaces a file or follows a link at the name it would use', () => {
    const spool = tempDir('spool-');
    const victim = join(tempDir('victim-'), 'authorized_keys');
    writeFileSync(victim, 'ssh-ed25519 AAAA user\n');
    symlinkSync(victim, join(spool, `log-entry-${id.slice(7)}`));
    writeFileSync(join(spool, `record-${id.slice(7)}`), 'kept');
    process.env['LEDGER_TEST_SPOOL'] = spool;
    spoolCopy('log-entry', id, bytes);
    spoolCopy('record', id, bytes);
    expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA user\n');
    expect(readFileSync(join(spool, `record-${id.slice(7)}`), 'utf8')).toBe('kept');
    // No temporary file is left behind either.
    expect(readdirSync(spool).sort()).toEqual(
      [`log-entry-${id.slice(7)}`, `record-${id.slice(7)}`].sort(),
    );
  });

  it('writes nothing for a relative directory or an id that is not one, and never under another name', () => {
    const cwd = tempDir('spool-cwd-');
    mkdirSync(join(cwd, 'spool'));
    const before = process.cwd();
    process.chdir(cwd);
    try {
      process.env['LEDGER_TEST_SPOOL'] = 'spool';
      spoolCopy('log-entry', id, bytes);
    } finally {
      process.chdir(before);
    }
    expect(readdirSync(join(cwd, 'spool'))).toEqual([]);
    const spool = tempDir('spool-');
    process.env['LEDGER_TEST_SPOOL'] = spool;
    spoolCopy('log-entry', '../../etc/passwd', bytes);
    spoolCopy('log-entry', `sha256:${'a'.repeat(64)}/../x`, bytes);
    expect(readdirSync(spool)).toEqual([]);
  });

  it('a spool that cannot be written changes nothing: the record is written and its id returned', async () => {
    const file = join(tempDir('spool-'), 'a-file');
    writeFileSync(file, '');
    for (const spool of [file, join(file, 'below'), '/nonexistent/spool']) {
      process.env['LEDGER_TEST_SPOOL'] = spool;
      const repo = gitdir();
      const { id } = await recordHandoff({ cwd: repo, status: 'success', summary: 'no spool' });
      expect(
        git(
          repo,
          'cat-file',
          '-t',
          `refs/ledger/log:records/${id.slice(7, 9)}/${id.slice(9)}/record`,
        ),
      ).toBe('blob');
    }
    expect(existsSync('/nonexistent/spool')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('');
  });
});
