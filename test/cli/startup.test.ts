/**
 * Issue 11, start-up: a command imports only what it needs. Timing is measured by
 * bench/startup.mjs, never asserted here; what is asserted is which modules a run loads, traced
 * by the ESM loader (test/helpers/import-trace.mjs), so an import that makes every start-up pay
 * for zod, the format modules, signing or sync is caught.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, gitdir, PROJECT_ROOT, tempDir } from '../helpers/git.js';

const TRACE = join(PROJECT_ROOT, 'test', 'helpers', 'import-trace.mjs');

/** Runs the CLI and returns the module URLs it loaded, relative to the project where inside it. */
function loadedBy(
  args: readonly string[],
  cwd: string,
): { code: number | null; modules: string[] } {
  const file = join(tempDir(), 'trace');
  writeFileSync(file, '');
  const r = spawnSync(process.execPath, ['--import', TRACE, BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, LEDGER_TEST_IMPORT_TRACE: file },
  });
  const root = `file://${PROJECT_ROOT}/`;
  const modules = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((url) => (url.startsWith(root) ? url.slice(root.length) : url));
  return { code: r.status, modules };
}

const heavy = (modules: string[]) =>
  modules.filter((m) =>
    /node_modules\/(zod|isomorphic-git)\/|dist\/src\/(formats|sign|sync|witness)\/|dist\/src\/model\/record\.js/.test(
      m,
    ),
  );

describe('start-up imports', () => {
  it('--version loads neither oclif nor the CLI', () => {
    const { code, modules } = loadedBy(['--version'], gitdir());
    expect(code).toBe(0);
    expect(
      modules.filter((m) => /@oclif|dist\/src\/cli\/main\.js|dist\/commands\//.test(m)),
    ).toEqual([]);
    expect(modules).toContain('dist/src/cli/version.js');
  });

  it('log on an empty ledger loads no zod, record schemas, formats, signing, sync or witness code', () => {
    const { code, modules } = loadedBy(['log'], gitdir());
    expect(code).toBe(0);
    expect(modules).toContain('dist/commands/log.js'); // the trace works
    expect(heavy(modules)).toEqual([]);
  });

  it('help loads none of them either', () => {
    const { code, modules } = loadedBy(['help'], gitdir());
    expect(code).toBe(0);
    expect(heavy(modules)).toEqual([]);
  });
});
