/**
 * A file that changes while record reads it is no bug of ledger's and no bad input: record
 * says which file changed and to run it again (exit 2), leaves nothing under refs/ledger, and a
 * retry once the file is settled succeeds. The race is driven at a pause point between the
 * file's fstat and its read (LEDGER_TEST_PAUSE_AT=snapshot.read), so it is deterministic.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { EXIT, LedgerError } from '../../src/model/errors.js';
import { cleanup, git, gitdir, tempDir } from '../helpers/git.js';

afterEach(() => {
  delete process.env['LEDGER_TEST_PAUSE_AT'];
  delete process.env['LEDGER_TEST_PAUSE_DIR'];
  cleanup();
});

async function until(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a file changing during record', () => {
  it('grown between its stat and its read: a coded error naming the file (exit 2), nothing under refs/ledger, and a retry succeeds', async () => {
    const dir = gitdir();
    writeFileSync(join(dir, 'src', 'app.ts'), 'export const x = 2;\n');
    const pause = tempDir('ledger-pause-');
    mkdirSync(pause, { recursive: true });
    process.env['LEDGER_TEST_PAUSE_AT'] = 'snapshot.read';
    process.env['LEDGER_TEST_PAUSE_DIR'] = pause;
    const recording = recordHandoff({ cwd: dir, status: 'success', summary: 'x' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await until(join(pause, 'paused'));
    appendFileSync(join(dir, 'src', 'app.ts'), 'export const y = 3;\n');
    writeFileSync(join(pause, 'resume'), '');
    const error = await recording;
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).exitCode).toBe(EXIT.usage);
    expect((error as LedgerError).message).toContain('src/app.ts');
    expect((error as LedgerError).hint).toMatch(/again/);
    expect(git(dir, 'for-each-ref', 'refs/ledger/')).toBe('');
    delete process.env['LEDGER_TEST_PAUSE_AT'];
    const retry = await recordHandoff({ cwd: dir, status: 'success', summary: 'x' });
    expect(retry.id).toMatch(/^sha256:/);
    expect(git(dir, 'for-each-ref', 'refs/ledger/')).not.toBe('');
  });

  it('in a large change (the pack workers read it): grown between its stat and its read, the same coded error, nothing under refs/ledger', async () => {
    const dir = gitdir();
    mkdirSync(join(dir, 'gen'));
    const names = Array.from({ length: 120 }, (_, i) => `gen/f${String(i).padStart(3, '0')}.ts`);
    for (const name of names) writeFileSync(join(dir, name), `export const v = ${name.length};\n`);
    const pause = tempDir('ledger-pause-');
    mkdirSync(pause, { recursive: true });
    process.env['LEDGER_TEST_PAUSE_AT'] = 'snapshot.read';
    process.env['LEDGER_TEST_PAUSE_DIR'] = pause;
    const recording = recordHandoff({ cwd: dir, status: 'success', summary: 'x' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await until(join(pause, 'paused'));
    // Each worker waits at its first file, between the fstat and the read: grow every file.
    for (const name of names) appendFileSync(join(dir, name), 'export const grown = 1;\n');
    writeFileSync(join(pause, 'resume'), '');
    const error = await recording;
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).message).toMatch(/gen\/f\d{3}\.ts changed while it was read/);
    expect(git(dir, 'for-each-ref', 'refs/ledger/')).toBe('');
  });
});
