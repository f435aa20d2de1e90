/**
 * Which held joins the ledger lacks count as held (src/ledger/held-joins.ts): the rule the
 * readers, the writers' held-guard, sync and verify share. The end-to-end flows (a runner's
 * re-clone, and what must stay a rollback) are in test/sync/unpublished-join.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId } from '../../src/canonical/index.js';
import {
  excuseJoins,
  joinLine,
  joinOf,
  mustReach,
  splitJoinLine,
} from '../../src/ledger/held-joins.js';
import type { LogEntry } from '../../src/model/record.js';
import { LOG_ENTRY_SCHEMA } from '../../src/model/vocabulary.js';

const id = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;

function entry(prev: string[], height: number, record: string | null = null) {
  const value: LogEntry = { schema: LOG_ENTRY_SCHEMA, record, prev: [...prev].sort(), height };
  return { id: toRecordId(encodeCanonical(value)), value };
}

/** The memory's `joins` as readJoinLines reads it. */
function noted(...joins: { id: string; value: LogEntry }[]): Map<string, string> {
  return new Map(joins.map((j) => splitJoinLine(joinLine(j.id, j.value)!)!));
}

describe('held joins', () => {
  it('attack: only a line whose height and parents hash to the id with record null is a join; an entry that carries a record is never noted as one', () => {
    const join = entry([id(1), id(2)], 5);
    const [, rest] = splitJoinLine(joinLine(join.id, join.value)!)!;
    expect(joinOf(join.id, rest)).toEqual(join.value.prev);
    // Another height, a parent dropped or swapped: not the entry the id names.
    expect(joinOf(join.id, `6 ${join.value.prev.join(' ')}`)).toBeUndefined();
    expect(joinOf(join.id, `5 ${id(1)}`)).toBeUndefined();
    expect(joinOf(join.id, `5 ${id(1)} ${id(3)}`)).toBeUndefined();
    // A record's entry with the same parents hashes to another id, and is not noted at all.
    const record = entry([id(1), id(2)], 5, id(9));
    expect(joinLine(record.id, record.value)).toBeUndefined();
    expect(joinOf(record.id, rest)).toBeUndefined();
  });

  it('a join counts when each parent is in the ledger, or is itself a join that counts; its stand-ins are what the ledger holds', async () => {
    const first = entry([id(1), id(2)], 3);
    const second = entry([first.id, id(3), id(4)], 4);
    const present = new Set([id(1), id(2), id(3), id(4)]);
    const missing = async (ids: string[]) => ids.filter((x) => !present.has(x));
    const counted = await excuseJoins([first.id, second.id], noted(first, second), missing);
    expect(counted.lost).toEqual([]);
    expect([...counted.standIns.get(second.id)!].sort()).toEqual([id(1), id(2), id(3), id(4)]);
    // One parent gone: neither counts (the second's parent is the first).
    present.delete(id(2));
    const lost = await excuseJoins([first.id, second.id], noted(first, second), missing);
    expect(lost.lost).toEqual([first.id, second.id]);
    // A join the memory has no line for, or a record entry, never counts.
    present.add(id(2));
    expect((await excuseJoins([first.id, id(7)], noted(second), missing)).lost).toEqual([
      first.id,
      id(7),
    ]);
  });

  it('the tip must reach a newest join’s stand-ins and every stand-in this clone never held', () => {
    const standIns = new Map([[id(10), [id(1), id(2)]]]);
    expect(mustReach([id(10)], new Set([id(10)]), standIns).sort()).toEqual([id(1), id(2)]);
    // Not the newest: its stand-ins are walked to unless this clone held them itself.
    expect(mustReach([id(11)], new Set([id(10), id(11)]), standIns).sort()).toEqual([
      id(1),
      id(2),
      id(11),
    ]);
    expect(mustReach([id(11)], new Set([id(1), id(2), id(10), id(11)]), standIns)).toEqual([
      id(11),
    ]);
  });
});
