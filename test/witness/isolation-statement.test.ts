/**
 * The isolation sentence (in verify's notes and in a record's `observed.isolation`) says what a
 * sandboxed witness can still reach. Run as root it is uid 0 without capabilities, which still
 * reads root-only files of the bound system directories: the sentence says so.
 */
import { describe, expect, it } from 'vitest';
import { describeIsolation, type Isolation } from '../../src/witness/sandbox.js';

const BWRAP: Isolation = { mode: 'bwrap', namespaces: [], unavailable: [] };
const NONE: Isolation = { mode: 'none', namespaces: [], unavailable: [] };

describe('describeIsolation', () => {
  it('says "as root" when ledger runs as uid 0, and not for an ordinary user', () => {
    const root = describeIsolation(BWRAP, false, 'witnesses', 0);
    expect(root).toMatch(/^witnesses isolated with bubblewrap/);
    expect(root).toContain('as root');
    expect(root).toContain('/etc/shadow');
    expect(describeIsolation(BWRAP, false, 'witnesses', 1000)).not.toContain('root');
    expect(describeIsolation(NONE, false, 're-runs', 0)).toMatch(/NOT isolated.*as root/);
    expect(describeIsolation(NONE, false, 're-runs', 1000)).not.toContain('root');
  });

  // Red team, round ten: unshare without iproute2's ip cannot bring loopback up; the sentence
  // says so and what to install, rather than the re-run failing.
  it('says loopback is down, and to install iproute2, for unshare without ip and the network cut', () => {
    const noIp: Isolation = {
      mode: 'unshare',
      namespaces: [],
      unavailable: [],
      loopbackDown: true,
    };
    expect(describeIsolation(noIp, false, 're-runs', 1000)).toMatch(
      /no network and loopback down: .*install iproute2/,
    );
    expect(describeIsolation(noIp, true, 're-runs', 1000)).not.toContain('loopback');
    const withIp: Isolation = { mode: 'unshare', namespaces: [], unavailable: [] };
    expect(describeIsolation(withIp, false, 're-runs', 1000)).not.toContain('loopback');
  });
});
