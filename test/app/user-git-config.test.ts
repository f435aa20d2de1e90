/**
 * Threat model, "the user's git config": `ledger.policy` comes from the user's global config,
 * else the system one — never from the repository verify runs in (local scope, agent-writable)
 * nor from the command line's (`GIT_CONFIG_COUNT`). The two reads run side by side
 * (src/app/policy/local.ts, issue 21); this holds them to the same files and precedence.
 * Runs the built module (`npm run build` first) in a child started in the repository.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeHome, tempDir } from '../helpers/env.js';
import { git, gitdir, PROJECT_ROOT } from '../helpers/git.js';

const LOCAL = pathToFileURL(join(PROJECT_ROOT, 'dist', 'src', 'app', 'policy', 'local.js')).href;

/** What readUserGitConfig('ledger.policy') answers in `cwd` under the given config files. */
function policySetting(
  cwd: string,
  files: { global?: string; system?: string },
): string | undefined {
  const user = makeHome();
  if (files.global !== undefined)
    git(cwd, 'config', '--file', user.env.GIT_CONFIG_GLOBAL!, 'ledger.policy', files.global);
  const system = join(tempDir(), 'gitconfig');
  writeFileSync(system, '');
  if (files.system !== undefined)
    git(cwd, 'config', '--file', system, 'ledger.policy', files.system);
  const { GIT_CONFIG_NOSYSTEM: _unused, ...env } = { ...process.env, ...user.env };
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { readUserGitConfig } = await import(${JSON.stringify(LOCAL)});
       process.stdout.write(JSON.stringify({ value: await readUserGitConfig('ledger.policy') }));`,
    ],
    {
      cwd,
      encoding: 'utf8',
      env: {
        ...env,
        GIT_CONFIG_SYSTEM: system,
        // The repository named as ledger re-adds it to every git it runs, so that git finds it
        // even from the home directory the config reads run in: its local scope is at hand.
        GIT_DIR: join(cwd, '.git'),
        // The command-line scope: as `git -c ledger.policy=…` would pass it.
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'ledger.policy',
        GIT_CONFIG_VALUE_0: '/command-line/policy.json',
      },
    },
  );
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { value?: string }).value;
}

describe("ledger.policy from the user's git config", () => {
  const repo = gitdir();
  git(repo, 'config', 'ledger.policy', '/repository/policy.json');

  it("ignores the repository's and the command line's setting when the user has none", () => {
    expect(policySetting(repo, {})).toBeUndefined();
  });

  it('takes the system setting when the global config has none', () => {
    expect(policySetting(repo, { system: '/system/policy.json' })).toBe('/system/policy.json');
  });

  it('takes the global setting over the system one', () => {
    expect(
      policySetting(repo, { global: '/global/policy.json', system: '/system/policy.json' }),
    ).toBe('/global/policy.json');
  });

  it('an empty global setting falls through to the system one, as before', () => {
    expect(policySetting(repo, { global: '', system: '/system/policy.json' })).toBe(
      '/system/policy.json',
    );
  });
});
