/**
 * Mainark: every fixture, the partial's mapping and the refusal of Mainark-authored fields,
 * handoffStats and validation, the review-request view, and parsers that never throw.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Claims,
  Record as RecordSchema,
  type LedgerRecord,
  type Status,
} from '../../../src/model/record.js';
import { mainark } from '../../../src/formats/mainark/index.js';
import { emptyHandoff, taskFromFileName } from '../../../src/formats/mainark/partial.js';
import { handoffStats, mainarkValidation } from '../../../src/formats/mainark/views.js';
import { emitAs, type ParseContext, type ParsedHandoff } from '../../../src/formats/index.js';
import { score } from '../helpers.js';

const detectMainark = (bytes: Uint8Array, fileName?: string): number =>
  score(mainark, bytes, fileName);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = join(root, 'fixtures/handoffs/mainark');
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const ctx = (fileName?: string, attachments?: Map<string, Uint8Array>): ParseContext => ({
  repoRoot: '/repo',
  now: new Date('2026-09-08T12:00:00Z'),
  ...(fileName === undefined ? {} : { fileName }),
  ...(attachments === undefined ? {} : { attachments }),
});

function isJsonLike(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0);
  if (Array.isArray(v)) return v.every(isJsonLike);
  if (typeof v === 'object')
    return (
      Object.getPrototypeOf(v) === Object.prototype && Object.values(v as object).every(isJsonLike)
    );
  return false;
}

function expectValidHandoff(h: ParsedHandoff): void {
  const parsed = Claims.safeParse(h.claims);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  expect(isJsonLike(h.claims.extra ?? {})).toBe(true);
  for (const r of h.reasons) expect(r.code).toMatch(/^MAINARK_[A-Z0-9_]+$/);
}

const OID = (c: string): string => c.repeat(40);
const SHA = (c: string): string => c.repeat(64);
const ev = (c: string) => ({ sha256: SHA(c), size: 10, blob: OID(c) });

function makeRecord(
  h: Pick<ParsedHandoff, 'claims' | 'status' | 'reasons'>,
  format: LedgerRecord['format'] = 'mainark',
  observed: Partial<LedgerRecord['observed']> = {},
): LedgerRecord {
  const record: LedgerRecord = {
    schema: 'ledger.record/v1',
    format,
    claims: h.claims,
    observed: {
      recordedAt: '2026-09-08T12:00:00.000Z',
      ledgerVersion: '0.1.0',
      producer: 'claude-implementer',
      base: { commit: OID('a'), tree: OID('b') },
      candidate: { tree: OID('c') },
      artifacts: [
        { path: 'src/handoff/finalize.ts', sha256: SHA('d'), size: 2048, blob: OID('d') },
      ],
      witnesses: [],
      evidence: [],
      effectiveStatus: h.status,
      reasons: h.reasons,
      ...observed,
    },
  };
  const checked = RecordSchema.safeParse(record);
  expect(checked.success, JSON.stringify(checked.error?.issues)).toBe(true);
  return record;
}

function parseOk(bytes: Uint8Array, c: ParseContext = ctx()): ParsedHandoff {
  const r = mainark.parse(bytes, c);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}

describe('mainark fixtures', () => {
  const files = readdirSync(fixtures).filter(
    (f) => f.endsWith('.json') && !f.endsWith('.expected.json'),
  );
  it('has at least 4 valid and 4 invalid examples', () => {
    const outcomes = files.map(
      (f) =>
        JSON.parse(readFileSync(join(fixtures, f.replace(/\.json$/, '.expected.json')), 'utf8'))
          .outcome,
    );
    expect(outcomes.filter((o) => o === 'recorded').length).toBeGreaterThanOrEqual(4);
    expect(outcomes.filter((o) => o === 'refused').length).toBeGreaterThanOrEqual(4);
  });
  for (const file of files) {
    it(file, () => {
      const expected = JSON.parse(
        readFileSync(join(fixtures, file.replace(/\.json$/, '.expected.json')), 'utf8'),
      ) as
        | { outcome: 'recorded'; status: Status; reasonCodes: string[] }
        | { outcome: 'refused'; problemPaths: string[] };
      const bytes = readFileSync(join(fixtures, file));
      const result = mainark.parse(bytes, ctx(`.mainark/${file}`));
      expect(detectMainark(bytes, `.mainark/${file}`)).toBeGreaterThanOrEqual(0.5);
      if (expected.outcome === 'recorded') {
        expect(result.ok, JSON.stringify(!result.ok && result.problems)).toBe(true);
        if (!result.ok) return;
        expectValidHandoff(result.handoff);
        expect(result.handoff.status).toBe(expected.status);
        expect([...new Set(result.handoff.reasons.map((r) => r.code))].sort()).toEqual(
          [...expected.reasonCodes].sort(),
        );
        expect(result.handoff.claims.task).toBe(
          file.replace(/^handoff-/, '').replace(/\.partial\.json$/, ''),
        );
        expect(detectMainark(bytes, `.mainark/${file}`)).toBe(1);
      } else {
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect([...new Set(result.problems.map((p) => p.path))].sort()).toEqual(
          [...expected.problemPaths].sort(),
        );
        for (const p of result.problems) expect(p.expected).toBeDefined();
      }
    });
  }
});

describe('mainark partial', () => {
  const full = readFileSync(join(fixtures, 'handoff-MAI-36.partial.json'));

  it('maps claims → decisions, uncertainty → openQuestions, focus → nextStep, and keeps the partial verbatim', () => {
    const h = parseOk(full, ctx('.mainark/handoff-MAI-36.partial.json'));
    const partial = JSON.parse(dec(full)) as Record<string, unknown>;
    expect(h.claims.status).toBe('');
    expect(h.claims.task).toBe('MAI-36');
    expect(h.claims.decisions?.map((d) => d.text)).toEqual(partial['claims']);
    expect(h.claims.openQuestions).toEqual(partial['uncertainty']);
    expect(h.claims.nextStep).toBe((partial['request'] as { focus: string }).focus);
    const { handoffStats: stats, ...rest } = h.claims.extra ?? {};
    expect(rest).toEqual(partial);
    expect(stats).toEqual({
      handoff_present: true,
      claims_count: 3,
      uncertainty_count: 2,
      abandoned_approaches_count: 2,
      handoff_bytes: full.length,
    });
    expect(h.status).toBe('success');
  });

  it('says validation is not_run only when no log was named on the command line', () => {
    expect(parseOk(full).reasons.map((r) => r.code)).toEqual(['MAINARK_VALIDATION_NOT_RUN']);
    const withLog = parseOk(
      full,
      ctx(undefined, new Map([['.reviews/pr-12.validate.log', enc('ok')]])),
    );
    expect(withLog.reasons).toEqual([]);
  });

  it('refuses every Mainark-authored field, one problem each, saying so', () => {
    const r = mainark.parse(
      enc(
        JSON.stringify({
          type: 'x',
          task: 'x',
          producer: 'x',
          intent: 'x',
          artifacts: [],
          state: {},
          validation: {},
          request: { action: 'review' },
          claims: [],
        }),
      ),
      ctx(),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.path).sort()).toEqual([
      'artifacts',
      'intent',
      'producer',
      'request.action',
      'state',
      'task',
      'type',
      'validation',
    ]);
    for (const p of r.problems) expect(p.message).toContain('Mainark-authored');
  });

  it('names the task only from a handoff-<ID>.partial.json file name', () => {
    expect(taskFromFileName('.mainark/handoff-MAI-36.partial.json')).toBe('MAI-36');
    expect(taskFromFileName('C:\\repo\\.mainark\\handoff-7.partial.json')).toBe('7');
    expect(taskFromFileName('handoff-MAI-36.json')).toBeUndefined();
    expect(taskFromFileName(undefined)).toBeUndefined();
  });

  it('detects by keys and by file name, and not other JSON', () => {
    expect(detectMainark(enc('{"claims":[]}'))).toBe(0.7);
    expect(detectMainark(enc('{"claims":[]}'), 'handoff-1.partial.json')).toBe(1);
    expect(detectMainark(enc('{"schema":"kxm.handoff-manifest.v1"}'))).toBe(0);
    expect(detectMainark(enc('{}'))).toBe(0);
    expect(detectMainark(enc('# Markdown'))).toBe(0);
  });
});

describe('mainark stats, empty handoff, validation', () => {
  it('handoffStats for no partial is all zeros', () => {
    expect(handoffStats(undefined)).toEqual({
      handoff_present: false,
      claims_count: 0,
      uncertainty_count: 0,
      abandoned_approaches_count: 0,
      handoff_bytes: 0,
    });
  });

  it('handoffStats counts even an unreadable partial as present, with its size', () => {
    expect(handoffStats(enc('not json'))).toEqual({
      handoff_present: true,
      claims_count: 0,
      uncertainty_count: 0,
      abandoned_approaches_count: 0,
      handoff_bytes: 8,
    });
  });

  it('emptyHandoff yields a record that says there was no partial', () => {
    const h = emptyHandoff('MAI-36');
    expectValidHandoff(h);
    expect(h.status).toBe('partial');
    expect(h.reasons.map((r) => r.code)).toEqual(['MAINARK_NO_PARTIAL']);
    expect(h.claims.extra?.['handoffStats']).toEqual(handoffStats(undefined));
    expect(emptyHandoff().claims.task).toBeUndefined();
  });

  it('mainarkValidation never invents evidence', () => {
    const h = parseOk(enc('{}'));
    expect(mainarkValidation(makeRecord(h))).toEqual({ status: 'not_run' });
    const withLogs = makeRecord(h, 'mainark', {
      evidence: [
        { name: 'notes.txt', file: ev('e') },
        { name: '.reviews/pr-12.validate.log', file: ev('f') },
      ],
    });
    expect(mainarkValidation(withLogs)).toEqual({
      status: 'from_log',
      log: '.reviews/pr-12.validate.log',
      sha256: SHA('f'),
    });
    expect(
      mainarkValidation(
        makeRecord(h, 'mainark', { evidence: [{ name: 'run.log', file: ev('e') }] }),
      ),
    ).toEqual({ status: 'from_log', log: 'run.log', sha256: SHA('e') });
  });
});

describe('mainark emit', () => {
  it('renders the ReviewRequestHandoff with system fields from the record and the agent part verbatim', () => {
    const bytes = readFileSync(join(fixtures, 'handoff-MAI-36.partial.json'));
    const h = parseOk(bytes, ctx('.mainark/handoff-MAI-36.partial.json'));
    const record = makeRecord(h, 'mainark', {
      evidence: [{ name: '.reviews/pr-12.validate.log', file: ev('f') }],
    });
    const out = emitAs('mainark-review', record);
    const rr = JSON.parse(dec(out.bytes)) as Record<string, unknown>;
    expect(Object.keys(rr).sort()).toEqual([
      'artifacts',
      'claims',
      'context',
      'intent',
      'producer',
      'request',
      'state',
      'task',
      'type',
      'uncertainty',
      'validation',
    ]);
    expect(rr['type']).toBe('review_request');
    expect(rr['task']).toBe('MAI-36');
    expect(rr['producer']).toBe('claude-implementer');
    expect(rr['validation']).toEqual({
      status: 'from_log',
      log: '.reviews/pr-12.validate.log',
      sha256: SHA('f'),
    });
    expect(rr['artifacts']).toEqual([
      { path: 'src/handoff/finalize.ts', sha256: SHA('d'), size: 2048 },
    ]);
    const partial = JSON.parse(dec(bytes)) as Record<string, unknown>;
    expect(rr['claims']).toEqual(partial['claims']);
    expect(rr['uncertainty']).toEqual(partial['uncertainty']);
    expect(rr['context']).toEqual(partial['context']);
    expect(rr['request']).toEqual({ action: 'review', ...(partial['request'] as object) });
    expect(out.losses).toEqual([]);
  });

  it('the agent part of an emitted handoff is a valid partial again', () => {
    const h = parseOk(readFileSync(join(fixtures, 'handoff-MAI-36.partial.json')));
    const rr = JSON.parse(dec(emitAs('mainark-review', makeRecord(h)).bytes)) as Record<
      string,
      unknown
    >;
    const agent = {
      claims: rr['claims'],
      uncertainty: rr['uncertainty'],
      context: rr['context'],
      request: { focus: (rr['request'] as { focus: string }).focus },
    };
    expect(parseOk(enc(JSON.stringify(agent))).claims.decisions).toEqual(h.claims.decisions);
  });

  it('renders a record from another format, with a loss report', () => {
    const record = makeRecord(
      {
        claims: {
          status: 'PASS',
          summary: 'Retry added',
          decisions: [{ text: 'Use backoff', reason: 'rate limits' }],
          assumptions: ['CI has network'],
          findings: [{ severity: 'note', summary: 'x' }],
          checks: [{ result: 'passed', command: 'npm test' }],
        },
        status: 'success',
        reasons: [],
      },
      'maxsim',
    );
    const out = emitAs('mainark-review', record);
    const rr = JSON.parse(dec(out.bytes)) as Record<string, unknown>;
    expect(rr['claims']).toEqual(['Use backoff (rate limits)']);
    expect(rr['uncertainty']).toEqual(['CI has network']);
    expect(rr['intent']).toBe('Retry added');
    expect(rr['validation']).toEqual({ status: 'not_run' });
    expect(out.losses).toEqual(expect.arrayContaining(['claims.findings', 'claims.checks']));
  });
});

describe('mainark properties', () => {
  const never = (bytes: Uint8Array, fileName?: string): void => {
    const r = mainark.parse(bytes, ctx(fileName));
    expect(typeof r.ok).toBe('boolean');
    if (r.ok) expectValidHandoff(r.handoff);
    else expect(r.problems.length).toBeGreaterThan(0);
    const d = detectMainark(bytes, fileName);
    expect(d >= 0 && d <= 1).toBe(true);
    const s = handoffStats(bytes);
    expect(s.handoff_bytes).toBe(bytes.length);
  };
  it('arbitrary bytes and text never throw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), (b) => never(b)),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 256 }), fc.string(), (s, f) =>
        never(enc(s), f),
      ),
      { numRuns: 1000 },
    );
  });
  it('arbitrary JSON never throws', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) =>
        never(enc(JSON.stringify(v) ?? 'null'), 'handoff-X.partial.json'),
      ),
      { numRuns: 1000 },
    );
  });
  it('partial-shaped JSON with arbitrary members never throws, and valid ones round-trip their counts', () => {
    const arr = fc.oneof(fc.array(fc.string({ minLength: 1 })), fc.jsonValue());
    const partial = fc.record(
      {
        claims: arr,
        uncertainty: arr,
        context: fc.oneof(
          fc.record({ abandonedApproaches: arr }, { requiredKeys: [] }),
          fc.jsonValue(),
        ),
        request: fc.oneof(fc.record({ focus: fc.string() }, { requiredKeys: [] }), fc.jsonValue()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(partial, (p) => {
        const bytes = enc(JSON.stringify(p));
        never(bytes);
        const r = mainark.parse(bytes, ctx());
        if (r.ok) {
          const stats = r.handoff.claims.extra?.['handoffStats'] as { claims_count: number };
          expect(stats.claims_count).toBe(Array.isArray(p.claims) ? p.claims.length : 0);
          expect(
            JSON.parse(dec(emitAs('mainark-review', makeRecord(r.handoff)).bytes)),
          ).toMatchObject({
            type: 'review_request',
          });
        }
      }),
      { numRuns: 1000 },
    );
  });
});
