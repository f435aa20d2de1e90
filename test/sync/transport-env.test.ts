/**
 * The environment sync gives its fetch and push: glibc keeps up to 1 MiB of freed heap, so a
 * `pack-objects` over thousands of loose objects stops returning and re-taking pages for each
 * one (docs/design.md, "One pass over every moved ref"); a user's own tunables are left alone.
 * The fetches and pushes that run with it are the sync tests' own (test/sync/*.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { TRANSPORT_TRIM_THRESHOLD, transportEnv } from '../../src/sync/remote.js';

describe('transportEnv', () => {
  it('sets glibc trim threshold when the user set no tunables', () => {
    expect(transportEnv({ PATH: '/usr/bin' })).toEqual({
      GLIBC_TUNABLES: `glibc.malloc.trim_threshold=${TRANSPORT_TRIM_THRESHOLD}`,
    });
    expect(TRANSPORT_TRIM_THRESHOLD).toBe(1024 * 1024);
  });

  it("keeps the user's GLIBC_TUNABLES as they are, even an empty one", () => {
    expect(transportEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })).toEqual({});
    expect(transportEnv({ GLIBC_TUNABLES: '' })).toEqual({});
  });
});
