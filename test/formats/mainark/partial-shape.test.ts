/**
 * What the Mainark seed leaves open is read in its reasonable variants (`request.focus` as one
 * string or a list), and `show --as mainark` writes the agent partial — the one shape that can
 * be recorded again — with the task in the file name, as Mainark names it.
 */
import { describe, expect, it } from 'vitest';
import { emitAs } from '../../../src/formats/index.js';
import { mainark } from '../../../src/formats/mainark/index.js';
import { recordOf } from '../helpers.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const ctx = { repoRoot: '/repo', now: new Date('2026-09-08T12:00:00Z') };

describe('Mainark partial variants', () => {
  it('request.focus as a string or as a list of strings; anything else is refused', () => {
    const one = mainark.parse(enc('{"request":{"focus":"the retry cap"}}'), ctx);
    expect(one.ok && one.handoff.claims.nextStep).toBe('the retry cap');
    const list = mainark.parse(enc('{"request":{"focus":["retry.ts","0042.sql"]}}'), ctx);
    expect(list.ok && list.handoff.claims.nextStep).toBe('retry.ts\n0042.sql');
    expect(list.ok && list.handoff.claims.extra?.['request']).toEqual({
      focus: ['retry.ts', '0042.sql'],
    });
    for (const bad of [
      '{"request":{"focus":3}}',
      '{"request":{"focus":[""]}}',
      '{"request":{"focus":[1]}}',
    ]) {
      const r = mainark.parse(enc(bad), ctx);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.problems[0]?.path).toMatch(/^request\.focus/);
    }
  });
});

describe('show --as mainark is the agent partial', () => {
  it('a partial converted and recorded again keeps its claims, uncertainty, focus and task', () => {
    const bytes = enc(
      '{"claims":["Added backoff"],"uncertainty":["index?"],"context":{"abandonedApproaches":["budget"]},"request":{"focus":["retry.ts","0042.sql"]}}',
    );
    const r = mainark.parse(bytes, { ...ctx, fileName: 'handoff-MAI-7.partial.json' });
    if (!r.ok) throw new Error('partial');
    const out = emitAs('mainark', recordOf(r.handoff, 'mainark'));
    expect(out.fileName).toBe('handoff-MAI-7.partial.json');
    expect(JSON.parse(new TextDecoder().decode(out.bytes))).toEqual(
      JSON.parse(new TextDecoder().decode(bytes)),
    );
    const again = mainark.parse(out.bytes, { ...ctx, fileName: out.fileName! });
    if (!again.ok) throw new Error('again');
    // handoffStats counts the bytes, which the rendering lays out anew; the rest is the same.
    const { handoffStats: _a, ...extraAgain } = again.handoff.claims.extra ?? {};
    const { handoffStats: _b, ...extraBefore } = r.handoff.claims.extra ?? {};
    expect({ ...again.handoff.claims, extra: extraAgain }).toEqual({
      ...r.handoff.claims,
      extra: extraBefore,
    });
  });

  it('a record of another format becomes a partial with a loss report; the review request is its own shape', () => {
    const record = recordOf(
      {
        claims: {
          status: 'PASS',
          task: 'MAI-9',
          decisions: [{ text: 'Chose A', reason: 'simpler' }],
          openQuestions: ['B?'],
          nextStep: 'review the cache',
          deferred: [{ category: 'bug', description: 'x' }],
        },
        status: 'success',
        reasons: [],
      },
      'maxsim',
    );
    const out = emitAs('mainark', record);
    expect(JSON.parse(new TextDecoder().decode(out.bytes))).toEqual({
      claims: ['Chose A'],
      uncertainty: ['B?'],
      request: { focus: 'review the cache' },
    });
    expect(out.losses.map((l) => l.replace(/ \(.*$/s, ''))).toEqual(
      expect.arrayContaining(['claims.decisions[0].reason', 'claims.status', 'claims.deferred']),
    );
    const again = mainark.parse(out.bytes, { ...ctx, fileName: out.fileName! });
    expect(again.ok && again.handoff.claims.task).toBe('MAI-9');
    const review = JSON.parse(new TextDecoder().decode(emitAs('mainark-review', record).bytes));
    expect(review).toMatchObject({
      type: 'review_request',
      task: 'MAI-9',
      request: { action: 'review' },
    });
  });
});
