import { describe, expect, it } from 'vitest';
import { scrubbedEnv } from '../../src/witness/index.js';

describe('scrubbedEnv', () => {
  const base: NodeJS.ProcessEnv = {
    PATH: '/usr/local/bin:/usr/bin:.::bin:/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    LC_CTYPE: 'C',
    TERM: 'xterm',
    TMPDIR: '/tmp',
    USER: 'u',
    SHELL: '/bin/bash',
    TZ: 'UTC',
    CI: 'true',
    npm_config_cache: '/home/u/.npm',
  };

  it('keeps the allow-list', () => {
    const env = scrubbedEnv(base);
    expect(Object.keys(env).sort()).toEqual(Object.keys(base).sort());
    expect(env.HOME).toBe('/home/u');
  });

  it('protects against a planted ./npm: relative and empty PATH entries are removed', () => {
    expect(scrubbedEnv(base).PATH).toBe('/usr/local/bin:/usr/bin:/bin');
  });

  it.each([
    ['GIT_DIR', 'points git at another repository'],
    ['GIT_CONFIG_PARAMETERS', 'injects git config (core.fsmonitor)'],
    ['GIT_SSH_COMMAND', 'runs code'],
    ['BASH_ENV', 'sourced by every bash script'],
    ['ENV', 'sourced by sh at startup'],
    ['BASH_FUNC_ls%%', 'exported functions'],
    ['LD_PRELOAD', 'loads code into every process'],
    ['LD_LIBRARY_PATH', 'redirects shared libraries'],
    ['DYLD_INSERT_LIBRARIES', 'loads code on macOS'],
    ['NODE_OPTIONS', '--require loads code into node'],
    ['SSH_AUTH_SOCK', 'signing with the user keys'],
    ['FOO_TOKEN', 'a credential'],
    ['GITHUB_TOKEN', 'a credential'],
    ['AWS_SECRET_ACCESS_KEY', 'a credential'],
    ['MY_API_KEY', 'a credential'],
    ['DB_PASSWORD', 'a credential'],
    ['client_secret', 'a credential'],
    ['npm_config_script_shell', 'runs code through npm'],
    ['RANDOM_UNKNOWN', 'not on the allow-list'],
  ])('drops %s (%s)', (name) => {
    const env = scrubbedEnv({ ...base, [name]: 'x' });
    expect(env).not.toHaveProperty(name);
  });

  it('applies extra after scrubbing, but never a denied name', () => {
    const env = scrubbedEnv(base, {
      HOME: '/tmp/throwaway',
      FOO: 'bar',
      LD_PRELOAD: '/evil.so',
      GIT_DIR: '/evil',
      GIT_CEILING_DIRECTORIES: '/tmp',
      GIT_CONFIG_NOSYSTEM: '1',
    });
    expect(env).toMatchObject({
      HOME: '/tmp/throwaway',
      FOO: 'bar',
      GIT_CEILING_DIRECTORIES: '/tmp',
      GIT_CONFIG_NOSYSTEM: '1',
    });
    expect(env).not.toHaveProperty('LD_PRELOAD');
    expect(env).not.toHaveProperty('GIT_DIR');
  });

  it('does not modify its input', () => {
    const input = { ...base, GIT_DIR: '/x' };
    scrubbedEnv(input);
    expect(input.GIT_DIR).toBe('/x');
  });
});
