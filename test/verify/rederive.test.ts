/**
 * verifyLedger in memory: check ids (stable, unique, naming the field), the stored effective
 * status re-derived from what the record kept (v2 exactly, v1 as far as it can be), leaves about
 * nothing, no whole read of a blob past the store's cap, and attested verdicts found by id.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeCanonical, type CborValue } from '../../src/canonical/index.js';
import { applyAttestations, type TrustedAttestation } from '../../src/verify/attested.js';
import { stripUndefined } from '../../src/app/record.js';
import { appendRecord } from '../../src/ledger/append.js';
import { appendLeaves, signatureObject } from '../../src/ledger/leaves.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { ATTESTATION_SCHEMA, ATTESTATION_SCHEMA_V1 } from '../../src/model/attestation.js';
import {
  RECORD_SCHEMA,
  RECORD_SCHEMA_V1,
  type Evidence,
  type LedgerRecord,
} from '../../src/model/record.js';
import { maxsim } from '../../src/formats/maxsim/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { deriveStatus } from '../../src/record/derive.js';
import type { Check } from '../../src/verify/types.js';
import { verifyLedger } from '../../src/verify/verify.js';
import { makeRecord } from '../helpers/ledger.js';

const enc = new TextEncoder();

/** Appends `record` with `kept` bytes stored as its evidence; returns its id. */
async function append(
  store: MemoryStore,
  made: Awaited<ReturnType<typeof makeRecord>>,
  record: LedgerRecord,
  kept: Uint8Array[] = [],
): Promise<string> {
  const evidence = new Map<string, string>();
  for (const bytes of kept)
    evidence.set(
      createHash('sha256').update(bytes).digest('hex'),
      await store.write('blob', bytes),
    );
  const appended = await appendRecord(
    store,
    {
      recordBytes: encodeCanonical(stripUndefined(record) as CborValue),
      candidateTree: record.observed.candidate.tree,
      baseTree: made.baseTree,
      baseCommitBytes: made.baseCommitBytes,
      evidence,
    },
    new Date('2026-01-02T00:00:00.000Z'),
  );
  return appended.id;
}

async function keep(store: MemoryStore, bytes: Uint8Array): Promise<Evidence> {
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
    blob: await store.write('blob', bytes),
  };
}

async function verify(store: MemoryStore, options = {}) {
  return verifyLedger(store, await readLedgerIndex(store), {
    now: new Date('2026-01-03T00:00:00.000Z'),
    ...options,
  });
}

const byId = (checks: readonly Check[]) => new Map(checks.map((c) => [c.id, c]));

/** A maxsim handoff whose verdict depends on the work tree it is read in (an absolute path). */
const MAXSIM = `### Key Decisions
- Kept the parser pure

### Artifacts
- Modified: /work/repo/src/a.ts

### Status
PARTIAL

### Deferred Items
None
`;

describe('check ids', () => {
  it('every check of a record has an id naming its field, unique, and the same on every run', async () => {
    const store = new MemoryStore();
    const made = await makeRecord(store, {
      files: { 'src/a.ts': 'one\ntwo\n', 'src/b.ts': 'b\n' },
      artifacts: ['src/a.ts', 'src/b.ts'],
      claims: {
        status: 'partial',
        artifacts: [
          { path: 'src/a.ts', action: 'modified' },
          { path: 'src/a.ts', action: 'modified' },
        ],
        references: [
          { path: 'src/a.ts', line: 2 },
          { path: 'src/a.ts', line: 2 },
        ],
        checks: [
          { command: 'npm test', result: 'passed' },
          { command: 'npm test', result: 'passed' },
        ],
        anchors: { branch: 'main' },
      },
    });
    const out = enc.encode('ok\n');
    const stdout = await keep(store, out);
    const record: LedgerRecord = {
      ...made.record,
      claims: { ...made.record.claims, status: 'partial' },
      observed: {
        ...made.record.observed,
        witnesses: [0, 1].map(() => ({
          command: 'npm test',
          exitCode: 0,
          signal: null,
          timedOut: false,
          durationMs: 1,
          stdout,
          stderr: stdout,
        })),
        effectiveStatus: 'partial',
      },
    };
    const id = await append(store, made, record, [out]);
    const first = await verify(store);
    const checks = first.records[0]!.checks;
    const ids = checks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'chain',
        'id',
        'canonical',
        'observed.base',
        'observed.base.commit',
        'observed.candidate',
        'observed.artifacts[0]',
        'observed.artifacts[1]',
        'observed.witnesses[0].stdout',
        'observed.witnesses[1].stderr',
        'observed.effectiveStatus',
        'observed.reasons',
        'observed.witnesses[0]',
        'observed.witnesses[1]',
        'claims.status',
        'claims.anchors.branch',
        'claims.artifacts[0]',
        'claims.artifacts[1]',
        'claims.references[0]',
        'claims.references[1]',
        'claims.checks[0]',
        'claims.checks[1]',
      ]),
    );
    expect(byId(checks).get('observed.witnesses[1]')).toMatchObject({
      check: 'witness',
      subject: 'npm test',
    });
    const again = await verify(store);
    expect(again.records[0]!.checks.map((c) => c.id)).toEqual(ids);
    expect(first.records[0]!.id).toBe(id);
  });
});

describe('the effective status, re-derived', () => {
  it('v2 and v5: a stored status above what the kept source and witnesses give is exit 3 naming the field', async () => {
    // A v2 record names no reader revision, so it is read as an older reader's: a better stored
    // status is still exit 3 (src/verify/reader-revision.ts). A v5 record naming this build's
    // revision gets the exact comparison.
    const variants = [
      {
        schema: 'ledger.record/v2' as const,
        detail:
          /stored success \(no reasons\), sealed by .*names no reader revision.*derives failed \(MAXSIM_.*is never taken on the record's word/,
      },
      {
        schema: 'ledger.record/v5' as const,
        readerRevision: maxsim.readerRevision,
        detail: /^stored success, but the kept maxsim source .* give failed: MAXSIM_/,
      },
    ];
    for (const variant of variants) {
      const store = new MemoryStore();
      const made = await makeRecord(store, { files: { 'src/a.ts': 'x\n' } });
      const source = enc.encode(MAXSIM);
      const record: LedgerRecord = {
        ...made.record,
        schema: variant.schema,
        format: 'maxsim',
        claims: { status: 'PARTIAL' },
        observed: {
          ...made.record.observed,
          source: await keep(store, source),
          input: { fileName: 'SUMMARY.md', root: '/work/repo' },
          effectiveStatus: 'success',
          reasons: [],
          ...('readerRevision' in variant ? { readerRevision: variant.readerRevision } : {}),
        },
      };
      await append(store, made, record, [source]);
      const report = await verify(store);
      expect(report.exitCode, variant.schema).toBe(3);
      const checks = byId(report.records[0]!.checks);
      expect(checks.get('observed.effectiveStatus'), variant.schema).toMatchObject({
        verdict: 'contradicted',
        integrity: true,
        detail: expect.stringMatching(variant.detail),
      });
    }
  });

  it('v1 kept no input context: a difference is unverifiable (not a false alarm), yet a failed witness under a stored success is exit 3', async () => {
    const store = new MemoryStore();
    const made = await makeRecord(store, { files: { 'src/a.ts': 'x\n' } });
    const source = enc.encode(MAXSIM);
    const kept = await keep(store, source);
    const { witnesses: _w, ...observedV1 } = made.record.observed;
    // What record derived in /work/repo (v2 rules, with the work tree path it kept).
    const atHome = await deriveStatus(
      {
        schema: RECORD_SCHEMA,
        format: 'maxsim',
        claims: { status: 'PARTIAL' },
        observed: {
          recordedAt: made.record.observed.recordedAt,
          witnesses: [],
          input: { root: '/work/repo' },
        },
      },
      { source, attachments: new Map() },
    );
    if (!atHome.ok) throw new Error(atHome.problem);
    const v1 = (exitCode: number, reasons = atHome.reasons) =>
      ({
        ...made.record,
        schema: RECORD_SCHEMA_V1,
        format: 'maxsim',
        claims: { status: 'PARTIAL', summary: `exit ${exitCode} ${reasons.length}` },
        observed: {
          ...observedV1,
          witnesses: [
            {
              command: 'npm test',
              exitCode,
              signal: null,
              timedOut: false,
              durationMs: 1,
              stdout: kept,
              stderr: kept,
            },
          ],
          source: kept,
          effectiveStatus: atHome.status,
          reasons,
        },
      }) as LedgerRecord;
    // A v1 record whose stored reasons are what its source gives re-derives exactly, wherever
    // it is verified.
    const honest = await append(store, made, v1(0), [source]);
    const exact = await verify(store, { root: '/elsewhere', ids: [honest] });
    expect(exact.exitCode).toBe(0);
    expect(byId(exact.records[0]!.checks).get('observed.effectiveStatus')?.verdict).toBe(
      'verified',
    );
    // One the parse cannot reproduce without the file name or work tree the record did not
    // keep (a v1 rule that depended on them): unverifiable with the reason, never exit 3.
    const contextual = await append(
      store,
      made,
      v1(0, [
        ...atHome.reasons,
        { code: 'MAXSIM_OUTSIDE_WORKTREE', message: 'a path outside the work tree', subject: 'x' },
      ]),
      [source],
    );
    const differs = await verify(store, { root: '/elsewhere', ids: [contextual] });
    expect(differs.exitCode).toBe(0);
    expect(byId(differs.records[0]!.checks).get('observed.effectiveStatus')).toMatchObject({
      verdict: 'unverifiable',
      detail: expect.stringMatching(/v1 record kept neither/),
    });
    // The caveat never covers what the record did keep: its own witness results.
    const forged = await append(
      store,
      made,
      { ...v1(1), observed: { ...v1(1).observed, effectiveStatus: 'success', reasons: [] } },
      [source],
    );
    const caught = await verify(store, { root: '/elsewhere', ids: [forged] });
    expect(caught.exitCode).toBe(3);
    expect(byId(caught.records[0]!.checks).get('observed.effectiveStatus')).toMatchObject({
      verdict: 'contradicted',
      detail: expect.stringMatching(/witness results allow at most failed/),
    });
  });
});

describe('leaves about nothing, and blobs past the cap', () => {
  it('a signature over an id not in the ledger is a finding about that leaf, not an integrity failure', async () => {
    const store = new MemoryStore();
    const made = await makeRecord(store);
    await append(store, made, made.record);
    const { added } = await appendLeaves(
      store,
      [{ dir: 'signatures', value: signatureObject(`sha256:${'0'.repeat(64)}`, 'junk') }],
      'junk',
      new Date(),
    );
    const report = await verify(store);
    expect(report.exitCode).toBe(0);
    expect(report.ledger.find((c) => c.id === `leaves[${added[0]}]`)).toMatchObject({
      verdict: 'unverifiable',
    });
    expect((await verify(store, { strict: true })).exitCode).toBe(1);
  });

  it('artifacts, claimed digests and file:line references of blobs past the whole-read cap are verified by streaming', async () => {
    const store = new MemoryStore({ maxWholeObjectBytes: 64 * 1024 });
    const big = 'a line of text\n'.repeat(20_000); // 300,000 bytes
    const made = await makeRecord(store, {
      files: { 'out/big.txt': big },
      artifacts: ['out/big.txt'],
      claims: {
        artifacts: [
          {
            path: 'out/big.txt',
            action: 'created',
            sha256: createHash('sha256').update(big).digest('hex'),
          },
        ],
        references: [{ path: 'out/big.txt', line: 20_000 }],
      },
    });
    await append(store, made, made.record);
    const report = await verify(store);
    expect(report.records[0]!.checks.filter((c) => c.verdict !== 'verified')).toEqual([]);
    const checks = byId(report.records[0]!.checks);
    expect(checks.get('observed.artifacts[0]')?.detail).toMatch(/300000 bytes/);
    expect(checks.get('claims.artifacts[0]')?.verdict).toBe('verified');
    expect(checks.get('claims.references[0]')?.verdict).toBe('verified');
  });
});

describe('attested verdicts are found by check id', () => {
  const checks: Check[] = [
    {
      id: 'observed.witnesses[0]',
      check: 'witness',
      subject: 'npm test',
      verdict: 'unverifiable',
      detail: 'not re-run',
    },
    {
      id: 'observed.witnesses[1]',
      check: 'witness',
      subject: 'npm test',
      verdict: 'unverifiable',
      detail: 'not re-run',
    },
    {
      id: 'observed.witnesses[2]',
      check: 'witness',
      subject: 'make',
      verdict: 'unverifiable',
      detail: 'not re-run',
    },
  ];
  const from = (attestation: Record<string, unknown>): TrustedAttestation => ({
    id: `sha256:${'a'.repeat(64)}`,
    signer: 'auditor@example.com',
    attestation: {
      subject: `sha256:${'b'.repeat(64)}`,
      policy: 'c'.repeat(64),
      ledgerVersion: '0.1.0',
      rerun: true,
      at: '2026-01-01T00:00:00.000Z',
      ...attestation,
    } as unknown as TrustedAttestation['attestation'],
  });
  const verdicts = (out: Check[]) => Object.fromEntries(out.map((c) => [c.id, c.verdict]));

  it('v2: each check takes the verdict recorded under its own id', () => {
    const out = applyAttestations(checks, [
      from({
        schema: ATTESTATION_SCHEMA,
        verdicts: [
          {
            id: 'observed.witnesses[0]',
            check: 'witness',
            subject: 'npm test',
            verdict: 'verified',
            detail: 'ok',
          },
          {
            id: 'observed.witnesses[1]',
            check: 'witness',
            subject: 'npm test',
            verdict: 'contradicted',
            detail: 'exit 1',
          },
        ],
      }),
    ]);
    expect(verdicts(out)).toEqual({
      'observed.witnesses[0]': 'verified',
      'observed.witnesses[1]': 'contradicted',
      'observed.witnesses[2]': 'unverifiable',
      attestation: 'verified',
    });
  });

  it('v1 (no ids): a (check, subject) that names two checks is never guessed; a unique one is used', () => {
    const out = applyAttestations(checks, [
      from({
        schema: ATTESTATION_SCHEMA_V1,
        verdicts: [
          { check: 'witness', subject: 'npm test', verdict: 'verified', detail: 'ok' },
          { check: 'witness', subject: 'npm test', verdict: 'contradicted', detail: 'exit 1' },
          { check: 'witness', subject: 'make', verdict: 'verified', detail: 'ok' },
        ],
      }),
    ]);
    expect(verdicts(out)).toEqual({
      'observed.witnesses[0]': 'unverifiable',
      'observed.witnesses[1]': 'unverifiable',
      'observed.witnesses[2]': 'verified',
      attestation: 'verified',
    });
  });
});
