/**
 * How a record's trusted attestations are merged per check (src/verify/attested.ts), in memory:
 * the rule the end-to-end tests in test/adversarial/attestations-gate.test.ts rely on.
 */
import { describe, expect, it } from 'vitest';
import { chooseAttested, type AttestedVerdict } from '../../src/verify/attested.js';

const at = (day: number) => `2026-01-0${day}T00:00:00.000Z`;
const v = (signer: string, day: number, verdict: AttestedVerdict['verdict']): AttestedVerdict => ({
  check: 'witness',
  subject: 'npm test',
  verdict,
  detail: verdict,
  signer,
  at: at(day),
});

describe('merging trusted attestations per check', () => {
  it('an attestation that did not re-run the check says nothing: an earlier failure stands', () => {
    const choice = chooseAttested([v('a', 1, 'contradicted'), v('a', 2, 'unverifiable')]);
    expect(choice?.chosen).toMatchObject({ verdict: 'contradicted', at: at(1) });
    expect(choice?.overruled).toEqual([]);
  });

  it("one auditor's newest re-run counts; the overruled earlier failure is named", () => {
    const choice = chooseAttested([v('a', 1, 'contradicted'), v('a', 2, 'verified')]);
    expect(choice?.chosen).toMatchObject({ verdict: 'verified', at: at(2) });
    expect(choice?.overruled.map((o) => o.verdict)).toEqual(['contradicted']);
  });

  it('across auditors a contradiction outranks a later pass, in any order', () => {
    for (const list of [
      [v('a', 1, 'contradicted'), v('b', 2, 'verified')],
      [v('b', 2, 'verified'), v('a', 1, 'contradicted')],
    ]) {
      const choice = chooseAttested(list);
      expect(choice?.chosen).toMatchObject({ verdict: 'contradicted', signer: 'a' });
      expect(choice?.overruled).toMatchObject([{ signer: 'b', verdict: 'verified' }]);
    }
  });

  it('the same instant never turns into a pass; nothing re-run gives no verdict', () => {
    expect(chooseAttested([v('a', 1, 'verified'), v('a', 1, 'contradicted')])?.chosen.verdict).toBe(
      'contradicted',
    );
    expect(chooseAttested([v('a', 1, 'unverifiable')])).toBeUndefined();
    expect(chooseAttested([])).toBeUndefined();
  });
});
