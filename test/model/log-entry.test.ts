/**
 * The zod-free log entry check (src/model/log-entry.ts, issue 21) accepts exactly what the
 * `LogEntry` schema accepts and returns the same value, key order included.
 */
import { describe, expect, it } from 'vitest';
import { parseLogEntry } from '../../src/model/log-entry.js';
import { LogEntry } from '../../src/model/record.js';

const A = `sha256:${'a'.repeat(64)}`;
const B = `sha256:${'b'.repeat(64)}`;
const good = { schema: 'ledger.log/v1', record: A, prev: [B], height: 2 };

const CASES: unknown[] = [
  good,
  { ...good, record: null },
  { ...good, prev: [] },
  { height: 1, prev: [A, B], record: B, schema: 'ledger.log/v1' },
  { ...good, height: Number.MAX_SAFE_INTEGER },
  { ...good, height: Number.MAX_SAFE_INTEGER + 1 },
  { ...good, height: 0 },
  { ...good, height: -1 },
  { ...good, height: 1.5 },
  { ...good, height: Number.NaN },
  { ...good, height: Number.POSITIVE_INFINITY },
  { ...good, height: '2' },
  { ...good, schema: 'ledger.log/v2' },
  { ...good, record: undefined },
  { ...good, record: 'sha256:AB' },
  { ...good, record: `sha256:${'A'.repeat(64)}` },
  { ...good, record: `${A}\n` },
  { ...good, prev: [null] },
  { ...good, prev: A },
  { ...good, prev: [A, 'x'] },
  { ...good, extra: 1 },
  { ...good, extra: undefined },
  { schema: 'ledger.log/v1', record: A, prev: [] },
  { schema: 'ledger.log/v1', prev: [], height: 1 },
  {},
  [],
  [good],
  null,
  'ledger.log/v1',
  1,
  true,
  new Uint8Array([1, 2]),
  Object.assign(Object.create(null) as object, good),
];

describe('parseLogEntry', () => {
  it.each(CASES.map((value, i) => [i, value] as const))(
    'case %i agrees with the schema',
    (_, value) => {
      const parsed = LogEntry.safeParse(value);
      const mine = parseLogEntry(value);
      if (parsed.success) {
        expect(mine).toStrictEqual(parsed.data);
        expect(Object.keys(mine!)).toEqual(Object.keys(parsed.data));
        expect(mine).not.toBe(value);
      } else {
        expect(mine).toBeUndefined();
      }
    },
  );

  it('accepts the good entry (the table is not all refusals)', () => {
    expect(parseLogEntry(good)).toEqual(good);
  });
});
