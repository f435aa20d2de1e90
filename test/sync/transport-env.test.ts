/**
 * The environment sync gives its fetch and push: glibc keeps up to 1 MiB of freed heap, so a
 * `pack-objects` over thousands of loose objects stops returning and re-taking pages for each
 * one (docs/design.md, "One pass over every moved ref"); a user's own tunables are left alone.
 * And stall limits the repository's config cannot lift; a stalled remote given up on them is
 * test/sync/hostile-remote.test.ts. The fetches and pushes that run with it are the sync tests'
 * own (test/sync/*.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { GitConfig, type ConfigEntry } from '../../src/store/git/config.js';
import {
  STALL_DEFAULTS,
  stallEnv,
  TRANSPORT_TRIM_THRESHOLD,
  transportEnv,
} from '../../src/sync/transport-env.js';

/** No configuration at all: the stall limits (test/sync/hostile-remote.test.ts) are ledger's. */
const NONE = new GitConfig([]);

describe('transportEnv', () => {
  it('sets glibc trim threshold when the user set no tunables', () => {
    expect(transportEnv(NONE, { PATH: '/usr/bin' })).toMatchObject({
      GLIBC_TUNABLES: `glibc.malloc.trim_threshold=${TRANSPORT_TRIM_THRESHOLD}`,
    });
    expect(TRANSPORT_TRIM_THRESHOLD).toBe(1024 * 1024);
  });

  it("keeps the user's GLIBC_TUNABLES as they are, even an empty one", () => {
    expect(transportEnv(NONE, { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })).not.toHaveProperty(
      'GLIBC_TUNABLES',
    );
    expect(transportEnv(NONE, { GLIBC_TUNABLES: '' })).not.toHaveProperty('GLIBC_TUNABLES');
  });
});

describe('stallEnv (red team, round nine: a remote that stops answering)', () => {
  it("pins ledger's limits unless the user's environment or own config sets theirs", () => {
    const entry = (scope: ConfigEntry['scope'], key: string, value: string): ConfigEntry => ({
      scope,
      origin: scope === 'command' ? 'command line:' : `file:${scope}`,
      key,
      value,
    });
    const defaults = {
      GIT_HTTP_LOW_SPEED_LIMIT: String(STALL_DEFAULTS.lowSpeedLimit),
      GIT_HTTP_LOW_SPEED_TIME: String(STALL_DEFAULTS.lowSpeedTime),
    };
    expect(defaults).toEqual({ GIT_HTTP_LOW_SPEED_LIMIT: '1', GIT_HTTP_LOW_SPEED_TIME: '120' });
    expect(stallEnv(new GitConfig([]), {})).toEqual(defaults);
    // The repository's own values are not the user's.
    const repository = new GitConfig([
      entry('local', 'http.lowspeedlimit', '0'),
      entry('worktree', 'http.lowspeedtime', '99999'),
      entry('local', 'http.http://x/.lowspeedtime', '99999'),
    ]);
    expect(stallEnv(repository, {})).toEqual(defaults);
    // The user's global (or system) config, read as git reads an integer.
    const user = new GitConfig([
      entry('system', 'http.lowspeedtime', '30'),
      entry('global', 'http.lowspeedlimit', '2k'),
      entry('local', 'http.lowspeedlimit', '0'),
    ]);
    expect(stallEnv(user, {})).toEqual({
      GIT_HTTP_LOW_SPEED_LIMIT: '2048',
      GIT_HTTP_LOW_SPEED_TIME: '30',
    });
    // The user's environment: git reads it itself, nothing is set over it.
    expect(stallEnv(user, { GIT_HTTP_LOW_SPEED_TIME: '600' })).toEqual({
      GIT_HTTP_LOW_SPEED_LIMIT: '2048',
    });
  });
});
