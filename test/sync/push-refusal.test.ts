/**
 * How sync reads a push git did not take: a race lost (another round) or a refusal (at once).
 * The texts are git's own words, as receive-pack and send-pack print them.
 */
import { describe, expect, it } from 'vitest';
import { lostRace, refusedPush } from '../../src/sync/push-refusal.js';

const REF = 'refs/ledger/writers/0f660b34274e62a7a06d8b63675f75fb';

function rejected(reason: string, remote = ''): string {
  return `${remote}To /tmp/origin.git\n !\tbe69c24:${REF}\t[remote rejected] (${reason})\nerror: failed to push some refs to '/tmp/origin.git'\n`;
}

describe('a push git did not take', () => {
  it('a ref deleted meanwhile (a checkpoint publisher retired it) is a race lost, not a refusal', () => {
    const text = rejected(
      'failed to update ref',
      `remote: error: cannot lock ref '${REF}': unable to resolve reference '${REF}'\n`,
    );
    expect(lostRace(text)).toEqual({ moved: true });
    expect(refusedPush(text, 'origin', REF, 'said')).toBeUndefined();
  });

  it('a ref moved before sending is a race lost', () => {
    const text = ` ! [rejected]        be69c24 -> ${REF} (stale info)\n`;
    expect(lostRace(text)).toEqual({ moved: true });
  });

  it('a lock held on the remote is a race lost where the ref did not move', () => {
    const text = rejected(
      'failed to update ref',
      `remote: error: Unable to create '/tmp/origin.git/${REF}.lock': File exists.\n`,
    );
    expect(lostRace(text)).toEqual({ moved: false });
    expect(refusedPush(text, 'origin', REF, 'said')).toBeUndefined();
  });

  it("the remote's own rules (a hook) refuse at once", () => {
    const text = rejected('pre-receive hook declined');
    expect(lostRace(text)).toBeUndefined();
    expect(refusedPush(text, 'origin', REF, 'said')?.code).toBe('REMOTE');
  });
});
