/**
 * The descent check sync makes before adopting a remote's tip: pure, over decoded new entries.
 */
import { describe, expect, it } from 'vitest';
import { descendsFrom } from '../../src/sync/check.js';
import { LOG_ENTRY_SCHEMA, type LogEntry } from '../../src/model/record.js';

const id = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
const entry = (prev: number[], height: number): LogEntry => ({
  schema: LOG_ENTRY_SCHEMA,
  record: null,
  prev: prev.map(id),
  height,
});

describe('descendsFrom', () => {
  // old chain 1 ← 2 ← 3 (tip 3); new entries numbered from 10
  it('a new tip that follows the old tip, directly or through new entries and joins, descends', () => {
    expect(descendsFrom(id(10), id(3), new Map([[id(10), entry([3], 4)]]))).toBe(true);
    const joined = new Map([
      [id(10), entry([2], 3)],
      [id(11), entry([3, 10], 4)],
      [id(12), entry([11], 5)],
    ]);
    expect(descendsFrom(id(12), id(3), joined)).toBe(true);
    expect(descendsFrom(id(3), id(3), new Map())).toBe(true);
  });

  it('a new tip re-parented onto an older entry, or an old entry named as the tip, does not', () => {
    expect(descendsFrom(id(10), id(3), new Map([[id(10), entry([1], 2)]]))).toBe(false);
    expect(descendsFrom(id(1), id(3), new Map())).toBe(false);
    // the walk stops at old entries: 2 is old, so reaching it proves nothing about 3
    expect(
      descendsFrom(
        id(11),
        id(3),
        new Map([
          [id(10), entry([2], 3)],
          [id(11), entry([10], 4)],
        ]),
      ),
    ).toBe(false);
  });
});
