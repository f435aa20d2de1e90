/**
 * Special files in the work tree. git ignores FIFOs and sockets in `add -A`, and so does the
 * snapshot (it opens nothing blocking); but git itself opens every `.gitignore` and
 * `.gitattributes` it meets with a blocking open, so a FIFO there hangs `git ls-files` — and
 * `record` with it, forever. Record must refuse, naming the file, instead.
 */
import { mkdirSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { LedgerError } from '../../src/model/errors.js';
import { mkfifo, withFifoRelease } from '../helpers/fifo.js';
import { cleanup, git, gitdir } from '../helpers/git.js';

afterEach(cleanup);

async function refusal(dir: string, fifo: string): Promise<LedgerError> {
  const { value, blocked } = await withFifoRelease(fifo, () =>
    recordHandoff({ cwd: dir, status: 'success', summary: 'x' }).then(
      () => undefined,
      (error: unknown) => error,
    ),
  );
  expect(blocked).toBe(false);
  expect(value).toBeInstanceOf(LedgerError);
  return value as LedgerError;
}

describe('record and special files', () => {
  it('a FIFO .gitignore (top or nested) or .gitattributes is refused with a usage error naming it; nothing is written', async () => {
    const dir = gitdir();
    // git reads src/.gitattributes only to compare a file whose stat data no longer matches
    // its index entry (or is racily clean, which depends on the clock): a new mtime on the
    // same content makes that compare, and so the read, certain.
    utimesSync(join(dir, 'src/app.ts'), new Date(), new Date(Date.now() + 3_600_000));
    for (const name of ['.gitignore', 'src/.gitignore', 'src/.gitattributes']) {
      const fifo = join(dir, name);
      mkfifo(fifo);
      const error = await refusal(dir, fifo);
      expect(error.code).toBe('USAGE');
      expect(error.message).toContain(name);
      expect(git(dir, 'for-each-ref', 'refs/ledger/')).toBe('');
      // Removed for the next round without git (git clean would read it, and wait).
      rmSync(fifo);
    }
  });

  it('a FIFO .gitattributes that git never reads (no file beside it to compare) does not stop a record', async () => {
    const dir = gitdir();
    // Stat data that matches the index, and an index written after the files: git compares
    // nothing, so it reads no attributes, and record has nothing to refuse.
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, 'src/app.ts'), past, past);
    git(dir, 'update-index', '--refresh');
    const fifo = join(dir, 'src/.gitattributes');
    mkfifo(fifo);
    const { value: outcome, blocked } = await withFifoRelease(fifo, () =>
      recordHandoff({ cwd: dir, status: 'success', summary: 'x' }),
    );
    expect(blocked).toBe(false);
    expect(outcome.id).toMatch(/^sha256:/);
  });

  it('a FIFO elsewhere in the work tree is left out, as git add -A leaves it out', async () => {
    const dir = gitdir();
    mkdirSync(join(dir, 'run'));
    mkfifo(join(dir, 'run', 'pipe'));
    const { value: outcome, blocked } = await withFifoRelease(join(dir, 'run', 'pipe'), () =>
      recordHandoff({ cwd: dir, status: 'success', summary: 'x' }),
    );
    expect(blocked).toBe(false);
    expect(outcome.id).toMatch(/^sha256:/);
  });
});
