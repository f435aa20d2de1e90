import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/env.js';
import { resolveInside } from '../../src/paths/index.js';
import { mkfifo } from '../helpers/fifo.js';

let base: string;
let root: string;
let outside: string;

beforeAll(() => {
  base = tempDir('ledger-paths-');
  root = join(base, 'repo');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'src/deep'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'src/a.ts'), 'export {};\n');
  writeFileSync(join(root, 'src/deep/b.ts'), 'b\n');
  writeFileSync(join(outside, 'secret'), 'hunter2\n');
  symlinkSync('/etc/passwd', join(root, 'passwd'));
  symlinkSync(join(outside, 'secret'), join(root, 'secret-abs'));
  symlinkSync('../outside/secret', join(root, 'secret-rel'));
  symlinkSync(outside, join(root, 'outdir'));
  symlinkSync('src', join(root, 'srclink'));
  symlinkSync('a.ts', join(root, 'src/inside-link'));
  symlinkSync('../a.ts', join(root, 'src/deep/up-link'));
  symlinkSync('missing-target', join(root, 'dangling'));
  symlinkSync('inside-hop', join(root, 'hop'));
  symlinkSync('../outside/secret', join(root, 'inside-hop'));
  mkfifo(join(root, 'fifo'));
});

describe('resolveInside', () => {
  it('resolves a plain file', async () => {
    expect(await resolveInside(root, 'src/a.ts')).toEqual({
      ok: true,
      abs: join(root, 'src/a.ts'),
      isSymlink: false,
    });
    expect(await resolveInside(root, './src//deep/b.ts')).toMatchObject({
      ok: true,
      isSymlink: false,
    });
  });

  it('accepts a symlink inside the repository and reports it', async () => {
    expect(await resolveInside(root, 'src/inside-link')).toEqual({
      ok: true,
      abs: join(root, 'src/inside-link'),
      isSymlink: true,
    });
    expect(await resolveInside(root, 'src/deep/up-link')).toMatchObject({
      ok: true,
      isSymlink: true,
    });
  });

  it.each([
    ['passwd', 'a symlink to /etc/passwd'],
    ['secret-abs', 'an absolute symlink to a secret outside'],
    ['secret-rel', 'a relative symlink to a secret outside'],
    ['hop', 'a symlink chain that ends outside'],
  ])('refuses %s (protects against %s)', async (path) => {
    const result = await resolveInside(root, path);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(/outside the repository/);
  });

  it.each([
    ['outdir/secret', 'a symlinked parent directory leading outside'],
    ['srclink/a.ts', 'a symlinked parent directory, even inside'],
  ])('refuses %s (protects against %s)', async (path) => {
    const result = await resolveInside(root, path);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(/symlink/);
  });

  it('refuses a hostile spelling before touching the file system', async () => {
    expect(await resolveInside(root, '../outside/secret')).toMatchObject({ ok: false });
    expect(await resolveInside(root, join(outside, 'secret'))).toMatchObject({ ok: false });
    expect(await resolveInside(root, '.GIT/config')).toMatchObject({ ok: false });
  });

  it('reports a missing file as "no such file"', async () => {
    expect(await resolveInside(root, 'src/missing.ts')).toEqual({
      ok: false,
      problem: 'no such file',
    });
    expect(await resolveInside(root, 'missing/a.ts')).toEqual({
      ok: false,
      problem: 'no such file',
    });
    expect(await resolveInside(root, 'src/a.ts/x')).toEqual({ ok: false, problem: 'no such file' });
  });

  it('refuses a dangling symlink', async () => {
    expect(await resolveInside(root, 'dangling')).toMatchObject({ ok: false });
  });

  it('protects against a reader hanging on a FIFO: refused', async () => {
    const result = await resolveInside(root, 'fifo');
    expect(result).toMatchObject({ ok: false, problem: expect.stringMatching(/regular file/) });
  });

  it('refuses a directory', async () => {
    expect(await resolveInside(root, 'src')).toMatchObject({ ok: false });
  });

  it('works when the root itself is reached through a symlink', async () => {
    const alias = join(base, 'alias');
    symlinkSync(root, alias);
    expect(await resolveInside(alias, 'src/a.ts')).toEqual({
      ok: true,
      abs: join(root, 'src/a.ts'),
      isSymlink: false,
    });
    expect(await resolveInside(alias, 'passwd')).toMatchObject({ ok: false });
  });
});
