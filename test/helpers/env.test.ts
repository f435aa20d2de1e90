/**
 * Test files share a worker (`isolate: false` in vitest.config.ts): the setup file's
 * `isolateProcess` must leave nothing of the file before it — not its HOME, not an env var it
 * set, not a `chdir`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolateProcess, tempDir } from './env.js';

describe('isolateProcess', () => {
  it('gives the next file a user of its own, the worker environment and working directory', () => {
    const cwd = process.cwd();
    const home = process.env['HOME'];
    const stray = tempDir();
    process.env['LEDGER_TEST_LEFT_BEHIND'] = '1';
    process.env['GIT_DIR'] = stray;
    process.chdir(stray);
    try {
      isolateProcess();
      expect(process.env['LEDGER_TEST_LEFT_BEHIND']).toBeUndefined();
      expect(process.env['GIT_DIR']).toBeUndefined();
      expect(process.cwd()).toBe(cwd);
      const next = process.env['HOME']!;
      expect(next).not.toBe(home);
      expect(process.env['GIT_CONFIG_GLOBAL']).toBe(join(next, '.gitconfig'));
      expect(readFileSync(process.env['GIT_CONFIG_GLOBAL']!, 'utf8')).toBe('');
      expect(process.env['GIT_CONFIG_NOSYSTEM']).toBe('1');
      for (const key of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME'])
        expect(existsSync(process.env[key]!) && process.env[key]!.startsWith(next), key).toBe(true);
    } finally {
      delete process.env['LEDGER_TEST_LEFT_BEHIND'];
      delete process.env['GIT_DIR'];
      process.chdir(cwd);
    }
  });
});
