/**
 * The zod-free record check (src/model/record-check.ts, issue 21) is an accept path: whatever it
 * accepts, the zod `Record` schema accepts too, and it returns the value zod returns (key order,
 * kept `undefined`s and references included). It must accept every record ledger writes, or it
 * buys nothing. The property below mutates valid records of every version at random depths and
 * holds the one direction that matters for trust: accepted here ⇒ accepted by zod.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stripUndefined } from '../../src/app/record.js';
import { decodeCanonical, encodeCanonical, type CborValue } from '../../src/canonical/index.js';
import { formatModule } from '../../src/formats/index.js';
import { parseRecord } from '../../src/model/record-check.js';
import { Record, type FormatName } from '../../src/model/record.js';
import { MemoryStore } from '../../src/store/memory.js';
import { PROJECT_ROOT } from '../helpers/git.js';
import { makeRecord } from '../helpers/ledger.js';
import { seededRandom } from '../helpers/seeded.js';
import { stress, stressLevel } from '../helpers/stress.js';

type Bag = { [key: string]: unknown };
interface Vector {
  name: string;
  schema: string;
  value: Bag;
}

const golden: Vector[] = [
  'schemas-v1.json',
  'schemas-v2.json',
  'schemas-v3.json',
  'schemas-v4.json',
  'schemas-v5.json',
]
  .flatMap(
    (file) =>
      JSON.parse(
        readFileSync(join(PROJECT_ROOT, 'fixtures', 'canonical', file), 'utf8'),
      ) as Vector[],
  )
  .filter((v) => v.schema.startsWith('ledger.record/'));
const byName = (name: string): Bag => golden.find((v) => v.name === name)!.value;

/**
 * The same value, as `toStrictEqual` sees it and more: own keys in the same order (zod's output
 * order is part of what must match), the same prototypes (an own `__proto__` key copied over
 * would swap one), the same holes, and anything but a plain object or array by reference only.
 */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  const proto: unknown = Object.getPrototypeOf(a);
  if (proto !== Object.getPrototypeOf(b)) return false;
  if (proto !== Object.prototype && proto !== Array.prototype) return false;
  const keys = Reflect.ownKeys(a);
  const other = Reflect.ownKeys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== other[i] || !same((a as Bag)[key as string], (b as Bag)[key as string]))
      return false;
  }
  return true;
}

/** Both checks on `value`; when the hand check accepts, zod must accept with an equal value. */
function judge(value: unknown): { mine: boolean; zod: boolean } {
  const mine = parseRecord(value);
  const theirs = Record.safeParse(value);
  if (mine !== undefined) {
    if (!theirs.success) expect.fail('the hand check accepted what zod refuses');
    if (!same(mine, theirs.data)) expect(mine).toStrictEqual(theirs.data); // shows the difference
    expect(same(mine, theirs.data), 'the same value as zod returns').toBe(true);
    if (mine === value) expect.fail('the input itself returned, not a fresh value as zod does');
  }
  return { mine: mine !== undefined, zod: theirs.success };
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

// ---------------------------------------------------------------------------------------------
// Seeds: the golden vectors, plus one record per version with every optional field filled
// ---------------------------------------------------------------------------------------------

const HEX = 'a'.repeat(64);
const OID = '4'.repeat(40);
const evidence = { sha256: HEX, size: 12, blob: OID, truncated: true, masked: ['TOKEN'] };
const FULL_CLAIMS = {
  status: 'PASS',
  summary: 's',
  task: 'T-1',
  run: 'r',
  attempt: '2',
  intent: 'ship',
  reworkOf: 'T-0',
  decisions: [{ text: 'd', reason: 'r' }],
  assumptions: ['a'],
  openQuestions: ['q'],
  deferred: [{ category: 'c', description: 'd', reason: 'r' }],
  findings: [{ severity: 'high', summary: 's', path: 'p', line: 1 }],
  references: [{ path: 'p', line: 2, endLine: 3, note: 'n', unverified: true }],
  confidence: { value: 100, justification: 'j' },
  nextStep: 'n',
  artifacts: [{ path: 'p', action: 'touched', sha256: HEX, as: '/abs/p' }],
  checks: [{ command: 'npm test', result: 'failed', exitCode: -2, details: 'x' }],
  insights: [{ id: 'i', category: 'c', content: 'c', source: 's' }],
  anchors: { baseCommit: 'b', candidateTree: 'c', branch: 'main' },
  extra: { nested: { deep: [1, 'two', null] }, flag: false },
};
const FULL_OBSERVED_V2 = {
  recordedAt: '2026-12-02T10:00:00Z',
  ledgerVersion: '0.1.0',
  producer: 'agent',
  base: { commit: null, tree: OID },
  candidate: { tree: OID },
  branch: 'main',
  artifacts: [{ path: 'p', sha256: HEX, size: 0, blob: OID }],
  witnesses: [
    {
      command: 'npm test',
      exitCode: null,
      signal: 'SIGKILL',
      timedOut: true,
      durationMs: 0,
      stdout: evidence,
    },
  ],
  evidence: [{ name: 'log', file: evidence }],
  source: evidence,
  effectiveStatus: 'blocked',
  reasons: [{ code: 'WITNESS_FAILED', message: 'm', subject: 's' }],
  input: { fileName: 'HANDOFF.md', root: '/work' },
};
const FULL_V3_ADDS = {
  isolation: { mode: 'bwrap', namespaces: ['net', 'pid'], network: false, statement: 'st' },
  skipped: [{ path: 'big.bin', size: 1 << 30, reason: 'over budget' }],
};
const v1Observed = () => {
  const { input: _input, ...rest } = clone(FULL_OBSERVED_V2);
  const w = { ...rest.witnesses[0]!, exitCode: 1, signal: null, stderr: evidence };
  const e = { sha256: HEX, size: 1, blob: OID, truncated: false };
  return {
    ...rest,
    base: { commit: OID, tree: OID },
    witnesses: [{ ...w, stdout: e, stderr: e }],
    evidence: [{ name: 'log', file: e }],
    source: e,
  };
};
const FULL: Bag[] = [
  { schema: 'ledger.record/v1', format: 'kxm', claims: FULL_CLAIMS, observed: v1Observed() },
  { schema: 'ledger.record/v2', format: 'team', claims: FULL_CLAIMS, observed: FULL_OBSERVED_V2 },
  {
    schema: 'ledger.record/v3',
    format: 'maxsim',
    claims: FULL_CLAIMS,
    observed: { ...FULL_OBSERVED_V2, ...FULL_V3_ADDS },
  },
  {
    schema: 'ledger.record/v4',
    format: 'lifecycle',
    claims: FULL_CLAIMS,
    observed: (() => {
      const { source: _source, ...rest } = { ...FULL_OBSERVED_V2, ...FULL_V3_ADDS };
      return rest;
    })(),
  },
  {
    schema: 'ledger.record/v5',
    format: 'structured',
    claims: FULL_CLAIMS,
    observed: { ...FULL_OBSERVED_V2, ...FULL_V3_ADDS, readerRevision: 3 },
  },
].map(clone);

/** Records the handoff fixtures become: each format's claims on a golden record's observations. */
function fromHandoffs(): Bag[] {
  const root = join(PROJECT_ROOT, 'fixtures', 'handoffs');
  const base = byName('record v2');
  const out: Bag[] = [];
  for (const format of readdirSync(root) as FormatName[]) {
    for (const file of readdirSync(join(root, format))) {
      if (file.endsWith('.expected.json')) continue;
      const result = formatModule(format).parse(readFileSync(join(root, format, file)), {
        repoRoot: '/work/repo',
        fileName: file,
        now: new Date('2026-12-02T10:00:00.000Z'),
      });
      if (!result.ok) continue;
      const { claims, status, reasons } = result.handoff;
      const record = {
        ...base,
        format,
        claims,
        observed: { ...(base['observed'] as Bag), effectiveStatus: status, reasons },
      };
      out.push(record); // as built, optional keys given as undefined included
      out.push(decodeCanonical(encodeCanonical(stripUndefined(record) as CborValue)) as Bag);
    }
  }
  return out;
}

describe('parseRecord: the records ledger writes', () => {
  it.each(golden.map((v) => [v.name, v.value] as const))('golden vector %s', (_, value) => {
    expect(judge(value)).toEqual({ mine: true, zod: true });
    // As stored: decoded from its canonical bytes.
    expect(judge(decodeCanonical(encodeCanonical(value as CborValue)))).toEqual({
      mine: true,
      zod: true,
    });
  });

  it.each(FULL.map((v) => [v['schema'], v] as const))(
    '%s with every optional field',
    (_, value) => {
      expect(judge(value)).toEqual({ mine: true, zod: true });
    },
  );

  it('every handoff fixture that records, as a record of its format', () => {
    const records = fromHandoffs();
    expect(records.length).toBeGreaterThan(100);
    for (const record of records) expect(judge(record)).toEqual({ mine: true, zod: true });
  });

  it('a record the test ledgers are built from', async () => {
    const { bytes } = await makeRecord(new MemoryStore(), { artifacts: ['src/a.ts'] });
    expect(judge(decodeCanonical(bytes))).toEqual({ mine: true, zod: true });
  });
});

describe('parseRecord: the refinements', () => {
  it('a v3 record with neither isolation nor skipped is left to zod, which refuses it', () => {
    const { isolation: _i, skipped: _s, ...observed } = FULL[2]!['observed'] as Bag;
    expect(judge({ ...FULL[2], observed })).toEqual({ mine: false, zod: false });
    // Given as undefined they count as absent, for zod's refine and here.
    const undef = { ...observed, isolation: undefined, skipped: undefined };
    expect(judge({ ...FULL[2], observed: undef })).toEqual({ mine: false, zod: false });
    expect(judge({ ...FULL[2], observed: { ...observed, isolation: undefined } })).toEqual({
      mine: false,
      zod: false,
    });
  });

  it('a v4 record with a source is left to zod, which refuses it; one given as undefined passes', () => {
    const observed = FULL[3]!['observed'] as Bag;
    expect(judge({ ...FULL[3], observed: { ...observed, source: evidence } })).toEqual({
      mine: false,
      zod: false,
    });
    expect(judge({ ...FULL[3], observed: { ...observed, source: undefined } })).toEqual({
      mine: true,
      zod: true,
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The differential property
// ---------------------------------------------------------------------------------------------

class Instance {
  status = 'PASS';
}
const MILLION = 'x'.repeat(1_000_000);
/** Values of every type a stored record must not hold where it holds another (fresh per use). */
const POOL: (() => unknown)[] = [
  () => undefined,
  () => null,
  () => true,
  () => Number.NaN,
  () => Number.POSITIVE_INFINITY,
  () => Number.NEGATIVE_INFINITY,
  () => -1,
  () => -0,
  () => 0,
  () => 1,
  () => 1.5,
  () => 100,
  () => 101,
  () => 2 ** 53,
  () => 2 ** 53 - 1,
  () => -(2 ** 53),
  () => '',
  () => 'x',
  () => 'x'.repeat(4096),
  () => 'x'.repeat(4097),
  () => '😀'.repeat(4096),
  () => MILLION,
  () => `${MILLION}x`,
  () => HEX,
  () => OID,
  () => `sha256:${HEX}`,
  () => 'ledger.record/v2',
  () => 'ledger.record/v3',
  () => 'ledger.record/v5',
  () => 2 ** 32,
  () => 2 ** 32 - 1,
  () => 'lifecycle',
  () => 'success',
  () => 'touched',
  () => 'WITNESS_FAILED',
  () => '2026-12-02T10:00:00Z',
  () => [],
  () => ({}),
  () => [undefined],
  // eslint-disable-next-line no-sparse-arrays
  () => [, 'x'],
  () => new Array(2),
  () => new Uint8Array([1, 2]),
  () => new Uint8Array(0),
  () => Buffer.from('x'),
  () => new Date(0),
  () => new Map([['status', 'PASS']]),
  () => new Set(['x']),
  () => Object.create(null) as object,
  () => Object.assign(Object.create(null) as object, { status: 'PASS' }),
  () => Object.create({ evil: 1 }) as object,
  () => Object.create({ status: 'PASS' }) as object,
  () => JSON.parse('{"__proto__": {"status": "PASS"}}') as object,
  () => JSON.parse('{"status": "PASS", "__proto__": {"evil": 1}}') as object,
  () => ({ status: 'PASS', constructor: function Evil() {} }),
  () => ({ [Symbol('s')]: 1 }),
  () => new Instance(),
  () => Object(String('x')) as object,
  () => ({ mode: 'none', namespaces: [], network: true, statement: 's' }),
  () => clone(evidence),
  () => clone(FULL_V3_ADDS.skipped),
];

/** Boxed primitives are left out: a String object's index keys cannot be assigned. */
const isContainer = (v: unknown): v is Bag | unknown[] =>
  v !== null &&
  typeof v === 'object' &&
  !ArrayBuffer.isView(v) &&
  !(v instanceof String || v instanceof Number || v instanceof Boolean);

/** Every object and array inside `value` (itself included): where a mutation may land. */
function containers(value: unknown, out: (Bag | unknown[])[] = []): (Bag | unknown[])[] {
  if (!isContainer(value)) return out;
  out.push(value);
  for (const v of Array.isArray(value) ? value : Object.values(value)) containers(v, out);
  return out;
}

/** One random change in place, somewhere in `root`; a description for the failure message. */
function mutate(root: Bag, random: () => number, donors: Bag[]): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const target = pick(containers(root));
  const keys = Array.isArray(target) ? target.map((_, i) => String(i)) : Object.keys(target);
  const key = keys.length ? pick(keys) : '0';
  const slot = target as Bag;
  const old = slot[key];
  const kind = Math.floor(random() * 9);
  switch (kind) {
    case 0:
      if (Array.isArray(target)) target.splice(Number(key), 1);
      else delete slot[key];
      return `delete ${key}`;
    case 1: {
      const extra = Array.isArray(target)
        ? String(target.length + Math.floor(random() * 2))
        : pick(['evil', 'Status', 'status ', '__proto__', 'constructor', 'toString', 'x']);
      Object.defineProperty(target, extra, {
        value: pick(POOL)(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return `add ${extra}`;
    }
    case 2:
    case 3:
      slot[key] = pick(POOL)();
      return `replace ${key} from the pool`;
    case 4: {
      // Another node of a valid record, so mutants stay close to valid.
      const donor = pick(containers(pick(donors)));
      slot[key] = clone(donor);
      return `replace ${key} with a valid node`;
    }
    case 5:
      if (typeof old === 'string') {
        slot[key] = pick([`${old}x`, old.slice(0, -1), old.toUpperCase(), `${old}\n`, ` ${old}`]);
        return `tweak the string ${key}`;
      }
      if (typeof old === 'number') {
        slot[key] = pick([old + 1, old - 1, -old, old / 2, old + 0.5, old * 2 ** 52]);
        return `tweak the number ${key}`;
      }
      slot[key] = pick(POOL)();
      return `replace ${key} from the pool`;
    case 6:
      if (isContainer(old) && !Array.isArray(old)) {
        slot[key] = pick([
          Object.assign(Object.create(null) as object, old),
          Object.assign(Object.create({ evil: 1 }) as object, old),
          Object.assign(new Instance(), old),
          Object.assign(Object.create(Object.create(null) as object) as object, old),
        ]);
        return `change the prototype of ${key}`;
      }
      if (Array.isArray(old) && old.length) {
        delete old[Math.floor(random() * old.length)];
        return `punch a hole in ${key}`;
      }
      slot[key] = pick(POOL)();
      return `replace ${key} from the pool`;
    case 7:
      slot[key] = undefined;
      return `set ${key} to undefined`;
    default:
      if (Array.isArray(old)) {
        old.push(clone(old[0] ?? null));
        return `grow ${key}`;
      }
      slot[key] = pick(POOL)();
      return `replace ${key} from the pool`;
  }
}

describe('parseRecord: accepted here ⇒ accepted by zod, on random mutations', () => {
  const SEED = 0x5eed_2026;
  const seeds = [...golden.map((v) => v.value), ...FULL];

  it('holds for every mutant, and the seeds themselves are all accepted here', () => {
    for (const seed of seeds) expect(judge(clone(seed))).toEqual({ mine: true, zod: true });
    const random = seededRandom(SEED);
    const cases = stress(3_000, 100_000, 'LEDGER_TEST_RECORD_MUTANTS');
    const tally = { mineAccepts: 0, zodAccepts: 0, onlyZod: 0 };
    for (let i = 0; i < cases; i++) {
      const value = clone(seeds[i % seeds.length]!);
      const steps: string[] = [];
      const n = 1 + Math.floor(random() * 3);
      for (let k = 0; k < n; k++) steps.push(mutate(value, random, seeds));
      let verdict: { mine: boolean; zod: boolean };
      try {
        verdict = judge(value);
      } catch (error) {
        throw new Error(`case ${i} (seed ${SEED}): ${steps.join('; ')}: ${String(error)}`, {
          cause: error,
        });
      }
      if (verdict.mine) tally.mineAccepts++;
      if (verdict.zod) tally.zodAccepts++;
      if (verdict.zod && !verdict.mine) tally.onlyZod++;
    }
    // Not vacuous: some mutants stay valid (and are accepted here), most are refused.
    expect(tally.mineAccepts).toBeGreaterThan(cases / 50);
    expect(tally.zodAccepts).toBeLessThan(cases);
    // What is left to zod although valid (objects of other prototypes, astral strings…) stays rare.
    expect(tally.onlyZod).toBeLessThan(tally.zodAccepts / 4);
  });
});

/** Where `path` leads inside `root`. */
function at(root: unknown, path: readonly string[]): Bag {
  let node = root as Bag;
  for (const key of path) node = node[key] as Bag;
  return node;
}

/** The paths of every object and array inside `value`, itself included. */
function containerPaths(value: unknown, path: string[] = [], out: string[][] = []): string[][] {
  if (!isContainer(value)) return out;
  out.push(path);
  for (const key of Object.keys(value)) containerPaths((value as Bag)[key], [...path, key], out);
  return out;
}

/** Each single change to the container at `path`, as a function that makes it on a copy. */
function singleChanges(
  seed: Bag,
  path: string[],
  pool: (() => unknown)[],
  lengths: readonly number[],
): [string, (c: Bag) => void][] {
  const out: [string, (c: Bag) => void][] = [];
  const node = at(seed, path);
  const where = path.join('.') || '(root)';
  // Arrays at and just past the schema's bounds on lengths (16, 4096, 100,000).
  if (Array.isArray(node) && node.length > 0)
    for (const length of lengths)
      out.push([
        `${where}: ${length} elements`,
        (c) => {
          const n = at(c, path) as unknown as unknown[];
          while (n.length < length) n.push(clone(n[0]));
        },
      ]);
  for (const key of Object.keys(node)) {
    const old = node[key];
    out.push([
      `${where}: delete ${key}`,
      (c) => {
        const n = at(c, path);
        if (Array.isArray(n)) n.splice(Number(key), 1);
        else delete n[key];
      },
    ]);
    pool.forEach((make, i) =>
      out.push([`${where}.${key} = pool[${i}]`, (c) => void (at(c, path)[key] = make())]),
    );
    if (typeof old === 'string' || typeof old === 'number')
      for (const tweak of typeof old === 'string'
        ? [`${old}x`, old.slice(0, -1), old.toUpperCase(), `${old}\n`]
        : [old + 1, old - 1, -old, old + 0.5])
        out.push([
          `${where}.${key} = ${JSON.stringify(tweak)}`,
          (c) => void (at(c, path)[key] = tweak),
        ]);
    if (isContainer(old) && !Array.isArray(old))
      for (const proto of [null, { evil: 1 }, Instance.prototype, new Date(0)])
        out.push([
          `${where}.${key}: another prototype`,
          (c) => {
            const n = at(c, path);
            n[key] = Object.assign(Object.create(proto) as object, n[key]);
          },
        ]);
    if (Array.isArray(node))
      out.push([`${where}: a hole at ${key}`, (c) => void delete at(c, path)[key]]);
  }
  const extras = Array.isArray(node)
    ? [String(node.length), String(node.length + 1)]
    : ['evil', '__proto__', 'constructor', 'toString'];
  for (const extra of extras)
    for (const make of [() => 'x', () => ({}), () => undefined])
      out.push([
        `${where}: add ${extra}`,
        (c) => {
          Object.defineProperty(at(c, path), extra, {
            value: make(),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        },
      ]);
  return out;
}

describe('parseRecord: accepted here ⇒ accepted by zod, for every single change', () => {
  // Random mutants reach a deep slot rarely; this sweep makes each one-step change once.
  const full = stressLevel() === 'full';
  const pool = full
    ? POOL
    : POOL.filter((make, i) => {
        const v = make();
        return (i % 2 === 0 || i < 4) && !(typeof v === 'string' && v.length > 5000);
      });
  const lengths = full ? [16, 17, 4096, 4097, 100_000, 100_001] : [16, 17, 4096, 4097];
  // v2's shapes are v3's, without the two v3 fields the random mutants move in and out.
  const seeds = full ? [...golden.map((v) => v.value), ...FULL] : [FULL[0]!, FULL[2]!, FULL[3]!];

  it.each(seeds.map((s) => [s['schema'], s] as const))('%s', (_, seed) => {
    let accepted = 0;
    let cases = 0;
    for (const path of containerPaths(seed))
      for (const [what, change] of singleChanges(seed, path, pool, lengths)) {
        const value = clone(seed);
        change(value);
        cases++;
        let verdict: { mine: boolean; zod: boolean };
        try {
          verdict = judge(value);
        } catch (error) {
          throw new Error(`${what}: ${String(error)}`, { cause: error });
        }
        if (verdict.mine) accepted++;
      }
    expect(cases).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(0);
  });
});
