/**
 * Cutting an answer to fit (src/mcp/bound.ts), in memory: nothing changes under the limit;
 * over it the largest lists and texts are cut, biggest first, ids and short texts never, and
 * every cut is listed.
 */
import { describe, expect, it } from 'vitest';
import { fitAnswer } from '../../src/mcp/bound.js';

const id = (i: number) => `sha256:${i.toString(16).padStart(64, '0')}`;

describe('fitAnswer', () => {
  it('returns an answer under the limit as it is', () => {
    const answer = { ok: true, records: [{ id: id(1) }] };
    expect(fitAnswer(answer, 10_000)).toEqual({ value: answer, cuts: [], minimal: false });
  });

  it('shortens the largest list from its end, and says how much it kept of how much', () => {
    const answer = {
      ok: false,
      records: Array.from({ length: 500 }, (_, i) => ({ id: id(i), verdict: 'verified' })),
      notes: ['one note'],
    };
    const { value, cuts } = fitAnswer(answer, 8_000);
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(8_000);
    expect(cuts).toEqual([{ path: 'records', kept: value.records.length, of: 500, unit: 'items' }]);
    expect(value.records[0]).toEqual(answer.records[0]);
    expect(value.notes).toEqual(['one note']);
    expect(answer.records).toHaveLength(500);
  });

  it('cuts a long text rather than drop the one item that holds it; ids stay whole', () => {
    const answer = { records: [{ id: id(7), summary: 's'.repeat(100_000) }] };
    const { value, cuts } = fitAnswer(answer, 5_000);
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(5_000);
    expect(value.records[0]!.id).toBe(id(7));
    expect(value.records[0]!.summary.endsWith('…')).toBe(true);
    expect(cuts).toEqual([
      {
        path: 'records[0].summary',
        kept: value.records[0]!.summary.length - 1,
        of: 100_000,
        unit: 'characters',
      },
    ]);
  });

  it('attack: thousands of short ids and codes still fit (lists are cut, never the ids in them)', () => {
    const answer = { ids: Array.from({ length: 20_000 }, (_, i) => id(i)) };
    const { value, cuts } = fitAnswer(answer, 4_000);
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(4_000);
    expect(value.ids.every((v, i) => v === id(i))).toBe(true);
    expect(cuts[0]).toMatchObject({ path: 'ids', of: 20_000, unit: 'items' });
  });
});
