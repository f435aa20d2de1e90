/**
 * The candidate tree is built from the index's entries (index-tree.ts), and the index is the
 * agent's file: an entry whose blob does not exist — with stat data that makes git trust it
 * unread — would put an id into the record's tree that no one can check. `git write-tree`
 * refused that; record must too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { LedgerError } from '../../src/model/errors.js';
import { cleanup, git, gitdir } from '../helpers/git.js';

afterEach(cleanup);

/** Rewrites one entry's object id inside .git/index, keeping its stat data, and re-seals it. */
function forgeIndexOid(dir: string, path: string): string {
  const real = git(dir, 'rev-parse', `:${path}`);
  const file = join(dir, '.git', 'index');
  const bytes = readFileSync(file);
  const at = bytes.indexOf(Buffer.from(real, 'hex'));
  expect(at).toBeGreaterThan(0);
  const fake = randomBytes(20);
  fake.copy(bytes, at);
  const body = bytes.subarray(0, bytes.length - 20);
  createHash('sha1')
    .update(body)
    .digest()
    .copy(bytes, bytes.length - 20);
  writeFileSync(file, bytes);
  return fake.toString('hex');
}

describe('index entries whose objects are missing', () => {
  it('an index entry naming a blob that does not exist (stat data intact) is refused, naming the path; nothing is written', async () => {
    const dir = gitdir();
    writeFileSync(join(dir, 'ghost.txt'), 'staged\n');
    // Older than the index: not racily clean, so git trusts the entry from stat alone.
    utimesSync(join(dir, 'ghost.txt'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    git(dir, 'add', 'ghost.txt');
    const fake = forgeIndexOid(dir, 'ghost.txt');
    // git itself trusts the entry from its stat data: not listed as modified.
    expect(git(dir, 'ls-files', '-m')).toBe('');
    expect(git(dir, 'ls-files', '-s', 'ghost.txt')).toContain(fake);
    const error = await recordHandoff({ cwd: dir, status: 'success', summary: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).message).toContain('ghost.txt');
    expect((error as LedgerError).message).toContain(fake);
    expect(git(dir, 'for-each-ref', 'refs/ledger/')).toBe('');
  });
});
