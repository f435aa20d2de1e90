/**
 * spec/'s golden vectors and CDDL, checked without src/: every vector is the pinned fixture's
 * bytes (so spec/ cannot drift from fixtures/canonical/), its id is the sha256 of those bytes,
 * its diagnostic notation is read off them, and it matches its CDDL rule under an independent
 * validator (test/helpers/cddl-validator.ts) — while every mutation of it (a missing key, a
 * wrong type, a key the spec does not allow) is rejected, so this test can fail.
 *
 * `SPEC_WRITE_VECTORS=1 npx vitest run test/spec/vectors.test.ts` rewrites spec/vectors/ from
 * the fixtures (after a new schema version added its pinned vectors there).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decoder } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { diagnostic } from '../helpers/cbor-diag.js';
import { CddlSchema } from '../helpers/cddl-validator.js';
import { PROJECT_ROOT } from '../helpers/git.js';
import { canonicalProblem } from './independent-verifier.js';

const SPEC = join(PROJECT_ROOT, 'spec');
const FIXTURES = join(PROJECT_ROOT, 'fixtures', 'canonical');
const WRITE = process.env['SPEC_WRITE_VECTORS'] === '1';

const schema = CddlSchema.load(join(SPEC, 'ledger.cddl'));
const asObjects = new Decoder({ mapsAsObjects: true, useRecords: false });
const asMaps = new Decoder({ mapsAsObjects: false, useRecords: false });

interface Fixture {
  name: string;
  hex: string;
  id?: string;
  code?: string;
  limits?: Record<string, number>;
}

function fixtures(file: string): Fixture[] {
  return JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Fixture[];
}

function json(file: string): unknown {
  return JSON.parse(readFileSync(join(SPEC, 'vectors', file), 'utf8'));
}

/** The CDDL rule each pinned object vector is an instance of. */
const RULES: Record<string, string> = {
  'record v1': 'record-v1',
  'log entry v1': 'log-entry',
  'record v2': 'record-v2',
  'record v2, no base commit, output not kept': 'record-v2',
  'record v3 (witnesses isolated)': 'record-v3',
  'record v3 (untracked files skipped)': 'record-v3',
  'record v4 (a lifecycle step: reject)': 'lifecycle-step',
  'record v5': 'record-v5',
  'record v5 (witnesses isolated, reader revision 7)': 'record-v5',
  'attestation v1': 'attestation-v1',
  'attestation v2': 'attestation-v2',
  'signature v1': 'signature',
};
const OBJECT_FILES = [
  'schemas-v1.json',
  'schemas-v2.json',
  'schemas-v3.json',
  'schemas-v4.json',
  'schemas-v5.json',
  'leaves.json',
];

function sha256Id(hex: string): string {
  return `sha256:${createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex')}`;
}

const expectedObjects = OBJECT_FILES.flatMap((file) =>
  fixtures(file).map((f) => ({
    name: f.name,
    rule: RULES[f.name] ?? '(no rule)',
    from: `fixtures/canonical/${file}`,
    id: f.id!,
    hex: f.hex,
    diagnostic: diagnostic(Buffer.from(f.hex, 'hex')),
  })),
);
const expectedEncoding = fixtures('vectors.json').map((f) => ({
  name: f.name,
  id: f.id!,
  hex: f.hex,
  diagnostic: diagnostic(Buffer.from(f.hex, 'hex')),
}));
const expectedRefused = fixtures('invalid.json').map((f) => ({
  name: f.name,
  hex: f.hex,
  code: f.code!,
  ...(f.limits === undefined ? {} : { limits: f.limits }),
}));

if (WRITE) {
  const put = (file: string, value: unknown) =>
    writeFileSync(join(SPEC, 'vectors', file), `${JSON.stringify(value, null, 2)}\n`);
  put('objects.json', expectedObjects);
  put('encoding.json', expectedEncoding);
  put('refused.json', expectedRefused);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every way of breaking `value` this test tries: each must be rejected. */
function mutants(value: { [key: string]: Json }): { what: string; value: Json }[] {
  const out: { what: string; value: Json }[] = [];
  const clone = () => structuredClone(value);
  // Every top-level key of every kind is required.
  for (const key of Object.keys(value)) {
    const v = clone();
    delete v[key];
    out.push({ what: `without ${key}`, value: v });
  }
  // Every map, at every depth, is closed (claims.extra is open by design: skipped).
  const walk = (node: Json, path: (string | number)[]) => {
    if (node === null || typeof node !== 'object') return;
    if (path.at(-1) === 'extra') return;
    if (!Array.isArray(node)) {
      const v = clone();
      (at(v, path) as { [key: string]: Json })['unexpectedKey'] = 1;
      out.push({ what: `an extra key at ${path.join('.') || 'the top'}`, value: v });
    }
    for (const [k, child] of Object.entries(node)) {
      const childPath = [...path, Array.isArray(node) ? Number(k) : k];
      if (child === null || typeof child !== 'object') {
        // A scalar of another type: no field takes two of these.
        const v = clone();
        const parent = at(v, path) as { [key: string]: Json };
        parent[k] =
          typeof child === 'string'
            ? 1
            : typeof child === 'number'
              ? '1'
              : child === null
                ? {}
                : 'true';
        out.push({ what: `a wrong type at ${childPath.join('.')}`, value: v });
      } else walk(child, childPath);
    }
  };
  walk(value, []);
  return out;
}

function at(root: Json, path: (string | number)[]): Json {
  let node = root;
  for (const p of path) node = (node as Record<string | number, Json>)[p]!;
  return node;
}

describe('spec/vectors', () => {
  it('are the pinned fixtures, byte for byte, with the diagnostic notation of their bytes', () => {
    expect(json('objects.json')).toStrictEqual(expectedObjects);
    expect(json('encoding.json')).toStrictEqual(expectedEncoding);
    expect(json('refused.json')).toStrictEqual(expectedRefused);
    expect(
      expectedObjects.every(
        (v) => v.rule in { ...Object.fromEntries(schema.ruleNames.map((n) => [n, 1])) },
      ),
    ).toBe(true);
  });

  it('every id is sha256 of exactly the bytes', () => {
    for (const v of [...expectedObjects, ...expectedEncoding])
      expect(v.id, v.name).toBe(sha256Id(v.hex));
  });

  describe.each(expectedObjects)('$name', ({ rule, hex }) => {
    const bytes = Buffer.from(hex, 'hex');

    it(`matches ${rule} and ledger-object`, () => {
      expect(schema.validate(rule, asMaps.decode(bytes))).toEqual([]);
      expect(schema.validate('ledger-object', asObjects.decode(bytes))).toEqual([]);
    });

    it('every mutation of it is rejected (missing key, wrong type, extra key)', () => {
      const value = asObjects.decode(bytes) as { [key: string]: Json };
      const broken = mutants(value);
      expect(broken.length).toBeGreaterThan(5);
      const accepted = broken
        .filter((m) => schema.validate(rule, m.value).length === 0)
        .map((m) => m.what);
      expect(accepted).toEqual([]);
    });
  });
});

describe('what the CDDL says that a type alone does not', () => {
  const decoded = (name: string) =>
    asObjects.decode(Buffer.from(expectedObjects.find((v) => v.name === name)!.hex, 'hex')) as {
      [key: string]: any;
    };

  it('a v3 record carries isolation or skipped; with neither it is refused', () => {
    const isolated = decoded('record v3 (witnesses isolated)');
    delete isolated.observed.isolation;
    expect(schema.validate('record-v3', isolated)).not.toEqual([]);
    const skipped = decoded('record v3 (untracked files skipped)');
    delete skipped.observed.skipped;
    expect(schema.validate('record-v3', skipped)).not.toEqual([]);
    skipped.observed.skipped = [];
    expect(schema.validate('record-v3', skipped)).not.toEqual([]);
  });

  it('a step (v4) keeps no handoff source and names no handoff format; a handoff is never "lifecycle"', () => {
    const step = decoded('record v4 (a lifecycle step: reject)');
    const source = { sha256: 'a'.repeat(64), size: 1, blob: 'b'.repeat(40) };
    const handoffV2 = decoded('record v2');
    expect(
      schema.validate('record-v2', { ...handoffV2, observed: { ...handoffV2.observed, source } }),
    ).toEqual([]);
    expect(
      schema.validate('record-v4', { ...step, observed: { ...step.observed, source } }),
    ).not.toEqual([]);
    expect(schema.validate('record-v4', { ...step, format: 'kxm' })).not.toEqual([]);
    const handoff = decoded('record v2');
    expect(schema.validate('record-v2', { ...handoff, format: 'lifecycle' })).not.toEqual([]);
    expect(schema.validate('ledger-record', { ...step, schema: 'ledger.record/v3' })).not.toEqual(
      [],
    );
  });

  it('a step links to the record it moves on; a v4 record without the link is no step', () => {
    const step = decoded('record v4 (a lifecycle step: reject)');
    expect(schema.validate('lifecycle-step', step)).toEqual([]);
    const unlinked = structuredClone(step);
    delete unlinked.claims.extra;
    expect(schema.validate('record-v4', unlinked)).toEqual([]);
    expect(schema.validate('lifecycle-step', unlinked)).not.toEqual([]);
  });

  it('ids, digests and object ids are lowercase hex of their exact length', () => {
    const entry = decoded('log entry v1');
    expect(schema.validate('log-entry', entry)).toEqual([]);
    for (const bad of [
      entry.record.toUpperCase().replace('SHA256', 'sha256'),
      `${entry.record}0`,
      entry.record.slice(7),
    ])
      expect(schema.validate('log-entry', { ...entry, record: bad }), bad).not.toEqual([]);
    expect(schema.validate('log-entry', { ...entry, height: 0 })).not.toEqual([]);
  });
});

describe("the independent verifier's canonical check (encoding.md)", () => {
  it('accepts every encoding vector and refuses every refused one', () => {
    for (const v of expectedEncoding)
      expect(canonicalProblem(Buffer.from(v.hex, 'hex')), v.name).toBeUndefined();
    // Vectors that exceed a caller-lowered limit are valid at the default limits.
    for (const v of expectedRefused.filter((r) => !('limits' in r)))
      expect(canonicalProblem(Buffer.from(v.hex, 'hex')), v.name).toBeDefined();
  });
});

describe('the validator itself', () => {
  const s = CddlSchema.fromText(`
top = { a: uint, ? b: [1*2 tstr], * tstr => bool }
pair = [uint, tstr]
`);

  it('follows RFC 8610 for occurrences, wildcards and closed maps', () => {
    expect(s.validate('top', { a: 1 })).toEqual([]);
    expect(s.validate('top', { a: 1, b: ['x', 'y'], c: true })).toEqual([]);
    expect(s.validate('top', { a: 1, b: [] })).not.toEqual([]);
    expect(s.validate('top', { a: 1, b: ['x', 'y', 'z'] })).not.toEqual([]);
    expect(s.validate('top', { a: 1, c: 2 })).not.toEqual([]);
    expect(s.validate('top', { a: -1 })).not.toEqual([]);
    expect(
      s.validate(
        'top',
        new Map<unknown, unknown>([
          ['a', 1],
          [2, true],
        ]),
      ),
    ).not.toEqual([]);
    expect(s.validate('pair', [1, 'x'])).toEqual([]);
    expect(s.validate('pair', [1, 'x', 2])).not.toEqual([]);
    expect(s.validate('pair', ['x', 1])).not.toEqual([]);
  });

  it('throws on what it does not implement rather than passing it', () => {
    expect(() => CddlSchema.fromText('t = { a: #6.1(uint) }').validate('t', { a: 1 })).toThrow();
    expect(() => CddlSchema.fromText('t = { a: missing-rule }')).toThrow(/missing-rule/);
  });
});
