/**
 * One chain check (issue 16, item 15): the log-chain rules live in `verify/log-chain.ts`, and a
 * full verify (no entry known good), a cached verify (the verified tip's entries known) and a
 * sync (this clone's entries known) each give the same finding for the same broken shape.
 * In memory: log entries written to a MemoryStore, the three callers over them.
 */
import { describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId, type CborValue } from '../../src/canonical/index.js';
import { fanout, LOG_DIR, RECORDS_DIR } from '../../src/ledger/layout.js';
import type { LedgerIndex } from '../../src/ledger/read.js';
import { insertPath } from '../../src/ledger/trees.js';
import { LOG_ENTRY_SCHEMA } from '../../src/model/record.js';
import { MemoryStore } from '../../src/store/memory.js';
import { MODE } from '../../src/store/objects.js';
import { checkIncoming } from '../../src/sync/check.js';
import { checkChain } from '../../src/verify/chain.js';
import { checkChainSince, differenceOf } from '../../src/verify/since.js';
import type { Check } from '../../src/verify/types.js';
import { verifyLedger } from '../../src/verify/verify.js';

const RECORD_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const rec = (n: number) => `sha256:${String(n).padStart(64, '0')}`;

interface Entry {
  record: string | null;
  prev: string[];
  height: number;
}

class Log {
  readonly store = new MemoryStore();
  readonly blobs = new Map<string, string>();
  async add(entry: Entry, bytes?: Uint8Array): Promise<string> {
    const value = { schema: LOG_ENTRY_SCHEMA, ...entry } as unknown as CborValue;
    const good = encodeCanonical(value);
    const id = toRecordId(good);
    this.blobs.set(id, await this.store.write('blob', bytes ?? good));
    return id;
  }
}

/** A shape: old entries (all good), then new ones, the tip, and the finding expected. */
interface Shape {
  name: string;
  build(log: Log): Promise<{
    old: string[];
    fresh: string[];
    tip: string;
    records: string[];
    /** Records the old entries name (held at the verified tip). */
    oldRecords?: string[];
  }>;
  finding: RegExp;
}

const shapes: Shape[] = [
  {
    name: 'hole',
    async build(log) {
      const a = await log.add({ record: null, prev: [], height: 1 });
      const ghost = toRecordId(new Uint8Array([1]));
      const b = await log.add({ record: null, prev: [a, ghost], height: 2 });
      return { old: [a], fresh: [b], tip: b, records: [] };
    },
    finding: /follows sha256:[0-9a-f]{64}, which is missing: the log has a hole/,
  },
  {
    name: 'wrong height',
    async build(log) {
      const a = await log.add({ record: null, prev: [], height: 1 });
      const b = await log.add({ record: null, prev: [a], height: 5 });
      return { old: [a], fresh: [b], tip: b, records: [] };
    },
    finding: /has height 5; expected 2/,
  },
  {
    name: 'bad hash',
    async build(log) {
      const a = await log.add({ record: null, prev: [], height: 1 });
      const b = await log.add({ record: null, prev: [a], height: 2 }, new Uint8Array([0xa0]));
      const c = await log.add({ record: null, prev: [b], height: 3 });
      return { old: [a], fresh: [b, c], tip: c, records: [] };
    },
    finding: /holds bytes whose sha256 is/,
  },
  {
    name: 'fork (an entry not reachable from the tip)',
    async build(log) {
      const a = await log.add({ record: null, prev: [], height: 1 });
      const b = await log.add({ record: null, prev: [a], height: 2 });
      const side = await log.add({ record: rec(5), prev: [a], height: 2 });
      return { old: [a], fresh: [b, side], tip: b, records: [rec(5)] };
    },
    finding: /is not reachable from the tip/,
  },
  {
    name: 'a record the log names but the ledger lacks',
    async build(log) {
      const a = await log.add({ record: null, prev: [], height: 1 });
      const b = await log.add({ record: rec(9), prev: [a], height: 2 });
      return { old: [a], fresh: [b], tip: b, records: [] };
    },
    finding: /names record sha256:0+9, which is missing from the ledger/,
  },
  {
    name: 'a record no log entry names',
    async build(log) {
      const a = await log.add({ record: null, prev: [], height: 1 });
      const b = await log.add({ record: null, prev: [a], height: 2 });
      return { old: [a], fresh: [b], tip: b, records: [rec(7)] };
    },
    finding: /record sha256:0+7 is in the ledger tree but no log entry names it/,
  },
  {
    name: 'a record named twice (a new entry names an old entry’s record)',
    async build(log) {
      const a = await log.add({ record: rec(3), prev: [], height: 1 });
      const b = await log.add({ record: rec(3), prev: [a], height: 2 });
      return { old: [a], fresh: [b], tip: b, records: [rec(3)], oldRecords: [rec(3)] };
    },
    finding: /the log names (this )?record (sha256:0+3 )?2 times; expected once/,
  },
];

function index(log: Log, entries: string[], tip: string, records: string[]): LedgerIndex {
  return {
    tipCommit: 'c'.repeat(40),
    tipTree: RECORD_TREE,
    tipEntry: tip,
    entries: new Map(entries.map((id) => [id, log.blobs.get(id)!])),
    records: new Map(records.map((id) => [id, RECORD_TREE])),
    signatures: new Map(),
    attestations: new Map(),
  };
}

const details = (checks: Check[]) =>
  checks.filter((c) => c.verdict !== 'verified').map((c) => c.detail);

async function viaFull(log: Log, s: Awaited<ReturnType<Shape['build']>>): Promise<string[]> {
  const out: Check[] = [];
  const whole = index(log, [...s.old, ...s.fresh], s.tip, s.records);
  await checkChain(log.store, whole, out);
  // Records named once is judged per record (verify.ts), over the whole log.
  const report = await verifyLedger(log.store, whole);
  return [...details(out), ...report.records.flatMap((r) => details(r.checks))];
}

async function viaSince(log: Log, s: Awaited<ReturnType<Shape['build']>>): Promise<string[]> {
  const out: Check[] = [];
  const before = index(log, s.old, s.old.at(-1)!, s.oldRecords ?? []);
  const now = index(log, [...s.old, ...s.fresh], s.tip, s.records);
  const plan = await checkChainSince(log.store, now, differenceOf(before, now), out);
  // A ledger that is not the verified state plus additions is verified whole (verify.ts).
  if (!plan.descends) return viaFull(log, s);
  const report = await verifyLedger(log.store, now, { since: differenceOf(before, now) });
  return [...details(out), ...report.records.flatMap((r) => details(r.checks))];
}

async function viaSync(log: Log, s: Awaited<ReturnType<Shape['build']>>): Promise<string[]> {
  // The remote's tree holds every entry; the old ones are this clone's.
  let tree: string | undefined;
  for (const id of [...s.old, ...s.fresh])
    tree = await insertPath(log.store, tree, [LOG_DIR, ...fanout(id)], {
      mode: MODE.file,
      oid: log.blobs.get(id)!,
    });
  for (const r of s.oldRecords ?? [])
    tree = await insertPath(log.store, tree, [RECORDS_DIR, ...fanout(r)], {
      mode: MODE.tree,
      oid: RECORD_TREE,
    });
  const leaves = new Map([
    [LOG_DIR, new Map(s.fresh.map((id) => [id, log.blobs.get(id)!]))],
    [RECORDS_DIR, new Map<string, string>()],
  ]);
  // A record no entry names is sent as a record leaf; verifying its (empty) tree is not the
  // point here, so only the chain's words are compared.
  const result = await checkIncoming(
    log.store,
    { commit: 'c'.repeat(40), tree: tree!, entryId: s.tip, entry: undefined as never },
    new Map([
      ...leaves,
      [
        RECORDS_DIR,
        new Map(
          s.records.filter((r) => !(s.oldRecords ?? []).includes(r)).map((r) => [r, RECORD_TREE]),
        ),
      ],
    ]),
  );
  return result.problems.map((p) => p.message);
}

describe('one chain check: the same finding in full verify, cached verify and sync', () => {
  for (const shape of shapes)
    it(shape.name, async () => {
      for (const [caller, run] of [
        ['full verify', viaFull],
        ['cached verify', viaSince],
        ['sync', viaSync],
      ] as const) {
        const log = new Log();
        const built = await shape.build(log);
        const found = await run(log, built);
        expect(
          found.some((d) => shape.finding.test(d)),
          `${caller}: ${JSON.stringify(found)}`,
        ).toBe(true);
      }
    });
});
