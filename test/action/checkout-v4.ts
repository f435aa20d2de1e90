/**
 * The workspace actions/checkout@v4 makes, and the auditor's policy, for the tests that run
 * action.yml's steps as the runner runs them (checkout.test.ts, merge-queue.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, tempDir } from '../helpers/git.js';

/** The witness the team's records name, and the auditor's policy lets re-run. */
export const WITNESS = 'grep -q three src/app.ts';

/** The workspace actions/checkout@v4 makes for `ref` (a remote-tracking ref) at `sha`. */
export function checkoutV4(
  remote: string,
  sha: string,
  ref: string,
  depth: 0 | 1,
  branch?: string,
): string {
  const dir = join(tempDir('ledger-workspace-'), 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q');
  git(dir, 'remote', 'add', 'origin', remote);
  git(dir, 'config', '--local', 'gc.auto', '0');
  const fetch = ['-c', 'protocol.version=2', 'fetch', '--no-tags', '--prune'];
  if (depth === 0)
    git(
      dir,
      '-c',
      'protocol.version=2',
      'fetch',
      '--prune',
      '--no-recurse-submodules',
      'origin',
      '+refs/heads/*:refs/remotes/origin/*',
      '+refs/tags/*:refs/tags/*',
    );
  git(
    dir,
    ...fetch,
    '--no-recurse-submodules',
    ...(depth === 1 ? ['--depth=1'] : []),
    'origin',
    `+${sha}:${ref}`,
  );
  if (branch !== undefined) git(dir, 'checkout', '-q', '--force', '-B', branch, ref);
  else git(dir, 'checkout', '-q', '--force', ref);
  git(dir, 'config', 'user.name', 'CI');
  git(dir, 'config', 'user.email', 'ci@example.com');
  return dir;
}

/** The auditor's policy, outside the repository: it lets the team's witness re-run. */
export function auditorPolicy(): string {
  const policy = join(tempDir('ledger-auditor-'), 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: false, commands: [WITNESS] },
      witnessTimeoutSeconds: 60,
    }),
  );
  return policy;
}
