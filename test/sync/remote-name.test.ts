/**
 * A remote's name is the repository's config, and never an option to git (red team, round
 * nine): a remote named `--upload-pack=<cmd>`, set as the current branch's upstream, went to
 * `git fetch` after its options, and git ran `<cmd>` on a plain `ledger sync`. Names are held
 * to git's own rule (`git remote add` is the oracle here), and `--` ends the options of every
 * fetch and push.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isValidRemoteName } from '../../src/sync/remote-name.js';
import { bareRemote, git, gitdir, gitTry, runCli, tempDir } from '../helpers/git.js';

const NAMES = [
  'origin',
  'upstream-2',
  'team/main',
  'ünïcode',
  'a@b',
  '-x',
  '--upload-pack=/tmp/evil.sh',
  'has space',
  'a..b',
  'x.lock',
  '.hidden',
  'dot.',
  'tab\there',
  'star*',
  'colon:x',
  'back\\slash',
  'at@{1}',
  'a//b',
  'trailing/',
];

describe('isValidRemoteName', () => {
  it('agrees with git remote add on every name, and refuses a leading "-" that git takes after --', () => {
    const dir = gitdir();
    for (const name of NAMES) {
      const added = gitTry(dir, 'remote', 'add', '--', name, '/nowhere').code === 0;
      expect(isValidRemoteName(name), name).toBe(added && !name.startsWith('-'));
    }
  });
});

describe('a remote named like an option', () => {
  for (const shape of ['with spaces', 'without spaces'] as const) {
    it(`attack: set as the upstream (${shape}), it is refused before git runs: nothing planted runs (exit 2)`, async () => {
      const dir = gitdir();
      const marker = join(tempDir(), 'PWNED');
      const script = join(dir, 'evil.sh');
      const name =
        shape === 'with spaces' ? `--upload-pack=touch ${marker};` : `--upload-pack=${script}`;
      writeFileSync(script, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
      git(dir, 'config', `remote.${name}.url`, bareRemote());
      git(dir, 'config', 'branch.main.remote', name);
      for (const args of [['sync'], ['sync', '--no-push'], ['sync', '--push-only']]) {
        const run = await runCli([...args, '--json'], dir);
        expect(existsSync(marker), `${args.join(' ')}: ${run.stdout}`).toBe(false);
        expect(run.code).toBe(2);
        expect(JSON.parse(run.stdout).error.message).toMatch(/not a valid remote name/);
      }
    });
  }
});
