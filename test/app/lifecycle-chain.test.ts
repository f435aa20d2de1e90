/**
 * `lifecycleChain` (what `show` prints beside a record, what a lifecycle step starts from) reads
 * the steps from the tip down to the chain's root, not every record of the ledger. It must
 * answer exactly what reading every record oldest first answered, whatever the chain: branches
 * (two steps on one record: the first wins), forbidden moves, steps on steps, supersedes.
 */
import { describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId, type CborValue } from '../../src/canonical/index.js';
import { lifecycleChain } from '../../src/app/lifecycle-chain.js';
import { lifecycleStates } from '../../src/app/lifecycle-state.js';
import { isLifecycleStep, lifecycleFormat } from '../../src/app/lifecycle-steps.js';
import { loadRecord } from '../../src/app/query.js';
import { stripUndefined } from '../../src/app/record.js';
import { appendRecord } from '../../src/ledger/append.js';
import { orderEntries, readAllEntries, readLedgerIndex } from '../../src/ledger/read.js';
import { LIFECYCLE_FORMAT, RECORD_SCHEMA_V4, type LedgerRecord } from '../../src/model/record.js';
import type { ObjectStore } from '../../src/store/port.js';
import { MemoryStore } from '../../src/store/memory.js';
import { makeRecord } from '../helpers/ledger.js';
import { seededRandom } from '../helpers/seeded.js';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n));

async function handoff(store: MemoryStore, n: number): Promise<string> {
  const made = await makeRecord(store, { claims: { task: `T-${n}`, summary: `handoff ${n}` } });
  return append(store, made.bytes, made, n);
}

/** A step as `ledger accept|reject|supersede` writes one, without the rule's refusals. */
async function step(
  store: MemoryStore,
  n: number,
  of: string,
  to: 'accepted' | 'rejected' | 'superseded',
  withId?: string,
): Promise<string> {
  const made = await makeRecord(store);
  const action = { accepted: 'accept', rejected: 'reject', superseded: 'supersede' }[to];
  const record: LedgerRecord = {
    ...made.record,
    schema: RECORD_SCHEMA_V4,
    format: LIFECYCLE_FORMAT,
    claims: {
      status: to,
      summary: `${to} ${of}`,
      extra: {
        lifecycle: { action, from: 'pending', to, of, ...(withId ? { with: withId } : {}) },
      },
    },
    observed: { ...made.record.observed, recordedAt: at(n).toISOString() },
  };
  return append(store, encodeCanonical(stripUndefined(record) as CborValue), made, n);
}

async function append(
  store: MemoryStore,
  recordBytes: Uint8Array,
  made: Awaited<ReturnType<typeof makeRecord>>,
  n: number,
): Promise<string> {
  const appended = await appendRecord(
    store,
    {
      recordBytes,
      candidateTree: made.candidateTree,
      baseTree: made.baseTree,
      baseCommitBytes: made.baseCommitBytes,
      evidence: new Map(),
    },
    at(n),
  );
  return appended.id;
}

/** The chain as it was read before: every record of the ledger, oldest first. */
async function everyRecordOldestFirst(store: ObjectStore, id: string) {
  const index = await readLedgerIndex(store);
  const { lifecycle } = lifecycleFormat;
  const linkOf = (r: LedgerRecord | undefined) =>
    r !== undefined && isLifecycleStep(r) ? lifecycle.linkOf(r) : undefined;
  const records = new Map<string, LedgerRecord>();
  // Every step linking to a node, oldest first; a fork follows the rule's allowed sibling of
  // the highest rank (reject > supersede > accept), the first in the log among equals.
  const children = new Map<string, string[]>();
  for (const { entry } of orderEntries(await readAllEntries(store, index)).reverse()) {
    if (entry.record === null) continue;
    const { record } = await loadRecord(store, index, entry.record);
    records.set(entry.record, record);
    const of = linkOf(record);
    if (of !== undefined) children.set(of, [...(children.get(of) ?? []), entry.record]);
  }
  let root = id;
  for (let of = linkOf(records.get(root)); of !== undefined && records.has(of);)
    [root, of] = [of, linkOf(records.get(of))];
  const ids = [root];
  const first = records.get(root)!;
  const asLifecycle = [
    isLifecycleStep(first)
      ? first
      : { ...first, claims: { ...first.claims, status: lifecycle.initialState } },
  ];
  const rank: Record<string, number> = { rejected: 3, superseded: 2, accepted: 1 };
  for (;;) {
    const siblings = (children.get(ids.at(-1)!) ?? []).filter((s) => !ids.includes(s));
    if (siblings.length === 0) break;
    const allowed = siblings.filter(
      (s) =>
        lifecycle.currentState([...asLifecycle, records.get(s)!]).problems.length ===
        lifecycle.currentState(asLifecycle).problems.length,
    );
    const pool = allowed.length > 0 ? allowed : siblings.slice(0, 1);
    const best = pool.reduce((a, b) =>
      (rank[records.get(b)!.claims.status] ?? 0) > (rank[records.get(a)!.claims.status] ?? 0)
        ? b
        : a,
    );
    ids.push(best);
    asLifecycle.push(records.get(best)!);
  }
  return { ids, state: lifecycle.currentState(asLifecycle).state };
}

/** Counts whole reads: what the chain costs, in objects. */
function counted(store: MemoryStore): { reader: MemoryStore; reads: () => number } {
  let reads = 0;
  const reader = Object.create(store) as MemoryStore;
  reader.read = (oid: string) => {
    reads++;
    return store.read(oid);
  };
  return { reader, reads: () => reads };
}

describe('lifecycleChain', () => {
  it('answers what reading every record oldest first answered, for every record of random ledgers', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const next = seededRandom(seed);
      const store = new MemoryStore();
      const ids: string[] = [];
      for (let n = 0; n < 40; n++) {
        const roll = next();
        const target = ids[Math.floor(next() * ids.length)];
        if (target === undefined || roll < 0.4) ids.push(await handoff(store, n));
        else if (roll < 0.6) ids.push(await step(store, n, target, 'accepted'));
        else if (roll < 0.8) ids.push(await step(store, n, target, 'rejected'));
        else {
          const by = ids[Math.floor(next() * ids.length)]!;
          ids.push(await step(store, n, target, 'superseded', by));
        }
      }
      const index = await readLedgerIndex(store);
      for (const id of ids) {
        const chain = await lifecycleChain(store, index, id);
        expect({ ids: chain.ids, state: chain.state }, `seed ${seed}, record ${id}`).toEqual(
          await everyRecordOldestFirst(store, id),
        );
        expect(chain.records.map((r) => r.claims.summary)).toEqual(
          await Promise.all(
            chain.ids.map(async (i) => (await loadRecord(store, index, i)).record.claims.summary),
          ),
        );
      }
    }
  });

  // verify's gate, log and report read every lifecycle at once (`lifecycleStates`, over the
  // records oldest first); show and the lifecycle commands read one chain. They must agree on
  // every handoff, also where a hand-made ledger has steps below the record they name (made by
  // appending steps on a record whose id is known before the record itself is appended).
  it('agrees with lifecycleStates on every handoff, steps below their record included', async () => {
    let below = 0;
    for (const seed of [11, 12, 13, 14]) {
      const next = seededRandom(seed);
      const store = new MemoryStore();
      const ids: string[] = [];
      const late: { made: Awaited<ReturnType<typeof makeRecord>>; id: string }[] = [];
      const appendLate = async (n: number) => {
        const { made, id } = late.shift()!;
        expect(await append(store, made.bytes, made, n)).toBe(id);
        ids.push(id);
      };
      for (let n = 0; n < 48; n++) {
        const roll = next();
        const known = [...ids, ...late.map((l) => l.id)];
        const target = known[Math.floor(next() * known.length)];
        if (roll < 0.12) {
          const made = await makeRecord(store, {
            claims: { task: `L-${n}`, summary: `late ${n}` },
          });
          late.push({ made, id: toRecordId(made.bytes) });
        } else if (target === undefined || roll < 0.4) {
          if (late.length > 0 && next() < 0.5) await appendLate(n);
          else ids.push(await handoff(store, n));
        } else if (roll < 0.6) ids.push(await step(store, n, target, 'accepted'));
        else if (roll < 0.8) ids.push(await step(store, n, target, 'rejected'));
        else ids.push(await step(store, n, target, 'superseded', known[0]));
      }
      while (late.length > 0) await appendLate(100 + late.length);
      const index = await readLedgerIndex(store);
      const oldestFirst = [];
      for (const { entry } of orderEntries(await readAllEntries(store, index)).reverse())
        if (entry.record !== null)
          oldestFirst.push({
            id: entry.record,
            record: (await loadRecord(store, index, entry.record)).record,
          });
      const states = lifecycleStates(oldestFirst);
      for (const { id, record } of oldestFirst) {
        if (isLifecycleStep(record)) continue;
        const chain = await lifecycleChain(store, index, id);
        const state = states.get(id)!;
        // `last`: the step that set the state, which `show` and the gate must name alike.
        expect(
          { state: state.state, steps: state.steps.map((s) => s.id), last: state.last?.id },
          `seed ${seed}`,
        ).toEqual({ state: chain.state, steps: chain.ids.slice(1), last: chain.last });
        below += state.below?.length ?? 0;
      }
    }
    // The ledgers did have steps below their records (the case this test is for).
    expect(below).toBeGreaterThan(3);
  });

  it('follows a chain of steps from any of its records to the same root and state', async () => {
    const store = new MemoryStore();
    const first = await handoff(store, 0);
    const other = await handoff(store, 1);
    const accepted = await step(store, 2, first, 'accepted');
    const superseded = await step(store, 3, accepted, 'superseded', other);
    const late = await step(store, 4, first, 'rejected'); // a fork on the handoff: reject wins
    const index = await readLedgerIndex(store);
    for (const id of [first, accepted, superseded, late]) {
      const chain = await lifecycleChain(store, index, id);
      expect(chain.ids).toEqual([first, late]);
      expect(chain.state).toBe('rejected');
      // The branch not followed is named, the step that builds on it too (red team, round eleven).
      expect(chain.setAside).toEqual([accepted, superseded]);
    }
    expect((await lifecycleChain(store, index, other)).ids).toEqual([other]);
    expect((await lifecycleChain(store, index, other)).state).toBe('pending');
  });

  // Only a hand-made ledger has a step below the record it names (an honest clone steps on a
  // record it holds): the id is known before the record is appended. It is not in the chain;
  // the verify gate, which reads every record, still counts it (docs/design.md, "Reading").
  it('leaves out a step written below the record it names', async () => {
    const store = new MemoryStore();
    const made = await makeRecord(store, { claims: { task: 'T-late', summary: 'late' } });
    const lateId = toRecordId(made.bytes);
    const forged = await step(store, 0, lateId, 'accepted');
    expect(await append(store, made.bytes, made, 1)).toBe(lateId);
    const index = await readLedgerIndex(store);
    const chain = await lifecycleChain(store, index, lateId);
    expect(chain.ids).toEqual([lateId]);
    expect(chain.state).toBe('pending');
    expect((await everyRecordOldestFirst(store, lateId)).ids).toEqual([lateId, forged]);
  });

  it('reads the records above the chain, not the whole ledger', async () => {
    const store = new MemoryStore();
    const old = await handoff(store, 0);
    for (let n = 1; n < 120; n++) await handoff(store, n);
    const recent = await handoff(store, 120);
    const stepped = await step(store, 121, recent, 'accepted');
    const index = await readLedgerIndex(store);
    const near = counted(store);
    const chain = await lifecycleChain(near.reader, index, recent);
    expect(chain.ids).toEqual([recent, stepped]);
    expect(chain.state).toBe('accepted');
    const far = counted(store);
    expect((await lifecycleChain(far.reader, index, old)).ids).toEqual([old]);
    // The oldest record's chain reads the whole log above it; the newest's, the two records
    // above and on it. Before, both read every record.
    expect(far.reads()).toBeGreaterThan(120 * 3);
    expect(near.reads()).toBeLessThan(far.reads() / 10);
  });
});
