/**
 * `CausalHeads` (red team, round eleven): a task's heads are its records no other record of the
 * task descends from through `prev`. Held here to the definition, computed by brute force, on
 * random DAGs whose heights follow the chain rule, fed in the merged order as `walkLog` gives it;
 * and the early stop `show --latest` makes (`settled`) must find every head.
 */
import { describe, expect, it } from 'vitest';
import { CausalHeads } from '../../src/ledger/causal-heads.js';
import { orderEntries } from '../../src/ledger/read.js';
import type { LogEntry } from '../../src/model/record.js';
import { LOG_ENTRY_SCHEMA } from '../../src/model/vocabulary.js';
import { seededRandom } from '../helpers/seeded.js';

const hex = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;

/** A random ledger: `writers` chains that now and then join what others published. */
function randomLedger(seed: number) {
  const random = seededRandom(seed);
  const entries = new Map<string, LogEntry>();
  const task = new Map<string, string>();
  let next = 1;
  const add = (record: boolean, prev: string[]) => {
    const id = hex(next++);
    const height = Math.max(0, ...prev.map((p) => entries.get(p)!.height)) + 1;
    const rec = record ? hex(100000 + next) : null;
    entries.set(id, { schema: LOG_ENTRY_SCHEMA, record: rec, prev: [...prev].sort(), height });
    if (rec !== null) task.set(id, `T-${Math.floor(random() * 4)}`);
    return id;
  };
  const tips: (string | undefined)[] = Array.from({ length: 1 + Math.floor(random() * 5) });
  // Half the ledgers start from one shared record (clones of a ledger), so histories meet again
  // below their joins; the others from fresh clones, whose histories meet only in joins.
  if (seed % 2 === 0) tips.fill(add(true, []));
  for (let step = 0; step < 40; step++) {
    const w = Math.floor(random() * tips.length);
    const mine = tips[w];
    const live = [...new Set(tips.filter((t) => t !== undefined))] as string[];
    if (random() < 0.08 && live.length > 1) {
      // Every clone syncs in turn and takes in the same join: the histories meet in one entry.
      tips.fill(add(false, live));
    } else if (random() < 0.25) {
      // A sync: join some other writers' tips.
      const others = tips.filter(
        (t, i) => i !== w && t !== undefined && random() < 0.6,
      ) as string[];
      const prev = [...new Set([...(mine === undefined ? [] : [mine]), ...others])];
      if (prev.length > 1) tips[w] = add(false, prev);
    } else tips[w] = add(true, mine === undefined ? [] : [mine]);
  }
  const live = [...new Set(tips.filter((t) => t !== undefined))] as string[];
  const tip = live.length === 1 ? live[0]! : add(false, live);
  return { entries, task, tip };
}

function ancestors(entries: Map<string, LogEntry>, id: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...entries.get(id)!.prev];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (seen.has(e)) continue;
    seen.add(e);
    stack.push(...entries.get(e)!.prev);
  }
  return seen;
}

describe('CausalHeads', () => {
  it('on random DAGs: the heads of every task, in the merged order, as the definition gives them', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const { entries, task } = randomLedger(seed);
      const order = orderEntries(entries);
      const heads = new CausalHeads();
      const firsts = new Map<string, string | undefined>();
      for (const { id, entry } of order) {
        const answer = heads.feed(id, entry, task.get(id));
        if (answer.head) firsts.set(entry.record!, answer.first);
      }
      for (const t of new Set(task.values())) {
        const ofTask = order.filter(({ id }) => task.get(id) === t);
        const expected = ofTask
          .filter(({ id }) => !ofTask.some((o) => o.id !== id && ancestors(entries, o.id).has(id)))
          .map(({ entry }) => entry.record!);
        expect(heads.headsOf(t), `seed ${seed} ${t}`).toEqual(expected);
        for (const [i, head] of expected.entries())
          expect(firsts.get(head)).toBe(i === 0 ? undefined : expected[0]);
      }
      expect(heads.settled(task.values())).toBe(true);
    }
  });

  it('a walk that stops once settled (show --latest) has found every head', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const { entries, task } = randomLedger(seed);
      const order = orderEntries(entries);
      for (const t of new Set(task.values())) {
        const full = new CausalHeads();
        for (const { id, entry } of order) full.feed(id, entry, task.get(id) === t ? t : undefined);
        const early = new CausalHeads();
        for (const { id, entry } of order) {
          if (early.headsOf(t).length > 0 && early.settled([t])) break;
          early.feed(id, entry, task.get(id) === t ? t : undefined);
        }
        expect(early.headsOf(t), `seed ${seed} ${t}`).toEqual(full.headsOf(t));
      }
    }
  });
});
