/**
 * Record-time binds of the work tree's ignored entries: each entry is checked like a
 * handed-over file, and the sandbox refuses to start when what it mounted is not the file
 * ledger checked (the agent swapped the entry for a symlink in between). Real sandboxes.
 */
import { lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, tempDir } from '../helpers/git.js';
import { runWitness } from '../../src/witness/run.js';
import { sandboxArgv, type SandboxBind } from '../../src/witness/sandbox.js';
import { workTreeBinds } from '../../src/witness/worktree-binds.js';

afterAll(cleanup);

function layout() {
  const base = tempDir('ledger-binds-');
  const root = join(base, 'repo');
  const outside = join(base, 'home', '.ssh');
  const writable = join(base, 'checkout');
  const work = join(writable, 'work');
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  mkdirSync(join(root, '.git'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), 'module.exports = 42;\n');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'id_ed25519'), 'PRIVATE KEY\n');
  symlinkSync(outside, join(root, 'secrets'));
  mkdirSync(join(writable, 'root'), { recursive: true });
  mkdirSync(work, { recursive: true });
  mkdirSync(join(base, 'scratch'));
  return { base, root, outside, writable, work };
}

async function run(mode: 'bwrap' | 'unshare', dir: string, work: string, binds: SandboxBind[]) {
  const command = 'cat node_modules/dep/index.js';
  const argv = await sandboxArgv(
    mode,
    { writable: dir, cwd: work, hidden: [], readOnly: [], network: false, binds },
    command,
    join(dir, 'root'),
  );
  return runWitness({
    command,
    cwd: work,
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    timeoutMs: 20_000,
    maxOutputBytes: 4096,
    argv: argv!,
  });
}

describe('workTreeBinds', () => {
  it('binds ignored directories; skips a symlink, a .git entry and a path the candidate tree holds, and says why', async () => {
    const { root, work } = layout();
    mkdirSync(join(work, 'dist'));
    mkdirSync(join(root, 'dist'));
    // The tree's `lib` is a link out of the checkout; the work tree's is a directory by now.
    const away = tempDir('ledger-away-');
    symlinkSync(away, join(work, 'lib'));
    mkdirSync(join(root, 'lib', 'gen', 'deep'), { recursive: true });
    const shown = await workTreeBinds(
      {
        root,
        paths: ['node_modules/', 'secrets', '.git/x', 'dist/', '../up', 'lib/gen/deep/'],
        never: [],
      },
      work,
    );
    expect(readdirSync(away)).toEqual([]);
    expect(shown.binds.map((b) => b.target)).toEqual([join(work, 'node_modules')]);
    expect(shown.skipped.join('\n')).toMatch(/"secrets": a symlink/);
    expect(shown.skipped.join('\n')).toMatch(/"\.git\/x": a \.git entry/);
    expect(shown.skipped.join('\n')).toMatch(/"dist": the candidate tree holds this path/);
    expect(shown.skipped.join('\n')).toMatch(/"\.\.\/up": not a path inside the work tree/);
    expect(shown.skipped.join('\n')).toMatch(
      /"lib\/gen\/deep": a directory above it in the checkout is a symlink/,
    );
  });
});

describe.each(['bwrap', 'unshare'] as const)('sandbox binds (%s)', (mode) => {
  it('shows a bound ignored directory; refuses to start when the mounted entry is not the one checked', async () => {
    const { root, outside, writable, work } = layout();
    const { binds } = await workTreeBinds(
      { root, paths: ['node_modules/'], never: [join(root, '.git')] },
      work,
    );
    const ok = await run(mode, writable, work, binds);
    expect(ok.sandboxFailed, ok.stderr.toString()).toBeFalsy();
    expect(ok.stdout.toString()).toContain('42');
    // The swap: the source now names another directory than the one whose dev:ino was checked.
    const swapped = binds.map((b) => ({ ...b, source: outside }));
    const refused = await run(mode, writable, work, swapped);
    expect(refused.sandboxFailed).toBe(true);
    expect(refused.stdout.toString()).not.toContain('PRIVATE KEY');
    expect(refused.stderr.toString()).toContain('changed while the sandbox was built');
    expect(lstatSync(join(work, 'node_modules')).isDirectory()).toBe(true);
  });
});
