/**
 * The effective status derivation `record` seals with and `verify` re-derives with. Pure: every
 * handoff in fixtures/ goes through the seal, the canonical round trip a stored record makes,
 * and the re-derivation, and must come out the same; records made without a handoff file are
 * derived from their claims by the rule `record` applied.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, type CborValue } from '../../src/canonical/index.js';
import { detectFormat, formatModule } from '../../src/formats/index.js';
import { sealedStatus, stripUndefined } from '../../src/app/record.js';
import {
  RECORD_SCHEMA,
  RECORD_SCHEMA_V1,
  Record as RecordSchema,
  type LedgerRecord,
  type WitnessObservation,
} from '../../src/model/record.js';
import { deriveStatus, type DerivableRecord } from '../../src/record/derive.js';
import { PROJECT_ROOT } from '../helpers/git.js';

const HANDOFFS = join(PROJECT_ROOT, 'fixtures', 'handoffs');
const AT = '2026-03-04T05:06:07.089Z';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

const witness = (
  command: string,
  exitCode: number | null,
  timedOut = false,
): WitnessObservation => ({
  command,
  exitCode,
  signal: exitCode === null ? 'SIGKILL' : null,
  timedOut,
  durationMs: 3,
});

/** A complete record around `derivable`, stored and read back as `verify` sees it. */
function storedAs(
  derivable: DerivableRecord,
  sealed: Awaited<ReturnType<typeof sealedStatus>>,
): LedgerRecord {
  const record = {
    ...derivable,
    observed: {
      ...derivable.observed,
      ledgerVersion: '0.1.0',
      base: { commit: '1'.repeat(40), tree: '2'.repeat(40) },
      candidate: { tree: '3'.repeat(40) },
      artifacts: [],
      evidence: [],
      effectiveStatus: sealed.status,
      reasons: sealed.reasons,
    },
  };
  const bytes = encodeCanonical(stripUndefined(record) as CborValue);
  return RecordSchema.parse(decodeCanonical(bytes)) as LedgerRecord;
}

describe('record seals what verify re-derives', () => {
  const handoffs = files(HANDOFFS).filter((f) => !f.endsWith('.expected.json'));
  let sealed = 0;
  for (const path of handoffs) {
    const name = path.slice(HANDOFFS.length + 1);
    it(`${name}: same status and reasons after a canonical round trip, with and without a failing witness`, async () => {
      const bytes = readFileSync(path);
      const fileName = name.split('/').at(-1)!;
      let module;
      try {
        module = detectFormat(bytes, fileName).module;
      } catch {
        return; // not a handoff any format reads: record refuses it, nothing to seal
      }
      const attachments = new Map([['validation log', new TextEncoder().encode('ok\n')]]);
      const context = { repoRoot: '/work/repo', fileName, attachments, now: new Date(AT) };
      const parsed = module.parse(bytes, context);
      if (!parsed.ok) return;
      for (const witnesses of [[], [witness('npm test', 0), witness('npm run lint', 2)]]) {
        const derivable: DerivableRecord = {
          schema: RECORD_SCHEMA,
          format: module.name,
          claims: parsed.handoff.claims,
          observed: { recordedAt: AT, witnesses, input: { fileName, root: '/work/repo' } },
        };
        const seal = await sealedStatus(derivable, { source: bytes, attachments });
        const stored = storedAs(derivable, seal);
        const again = await deriveStatus(stored, { source: bytes, attachments });
        expect(again).toEqual({
          ok: true,
          status: seal.status,
          reasons: seal.reasons,
          readerRevision: module.readerRevision,
        });
        expect(seal.readerRevision).toBe(module.readerRevision);
        if (witnesses.length > 0) expect(seal.status).toBe('failed');
        // and the seal is the format's own verdict, lowered only by the witnesses
        if (witnesses.length === 0) {
          expect(seal.status).toBe(parsed.handoff.status);
          expect(seal.reasons).toEqual(parsed.handoff.reasons);
        }
      }
      sealed++;
    });
  }
  it('covered handoffs of every format that has fixtures', () => {
    expect(sealed).toBeGreaterThan(30);
  });
});

describe('records made without a handoff file', () => {
  const base = (
    format: LedgerRecord['format'],
    claims: LedgerRecord['claims'],
  ): DerivableRecord => ({
    schema: RECORD_SCHEMA,
    format,
    claims,
    observed: { recordedAt: AT, witnesses: [] },
  });
  const none = { attachments: new Map() };

  it('flags only: the claimed ledger status, lowered by witnesses; any other word cannot have been recorded', async () => {
    expect(await deriveStatus(base('ledger', { status: 'partial' }), none)).toEqual({
      ok: true,
      status: 'partial',
      reasons: [],
      readerRevision: formatModule('ledger').readerRevision,
    });
    const failing = { ...base('ledger', { status: 'success' }) };
    failing.observed = { ...failing.observed, witnesses: [witness('make', null, true)] };
    expect(await deriveStatus(failing, none)).toMatchObject({
      ok: true,
      status: 'failed',
      reasons: [{ code: 'WITNESS_TIMED_OUT', subject: 'make' }],
    });
    expect(await deriveStatus(base('ledger', { status: 'PASS' }), none)).toMatchObject({
      ok: false,
    });
  });

  it('a Mainark run that left no partial: partial, MAINARK_NO_PARTIAL naming the task', async () => {
    // The claims `record --format mainark --task MAI-7` stores (no partial: empty handoff stats).
    const claims = formatModule('mainark').fromFlags!({ task: 'MAI-7' });
    if (!claims.ok) throw new Error('mainark makes a handoff from flags');
    expect(await deriveStatus(base('mainark', claims.handoff.claims), none)).toMatchObject({
      ok: true,
      status: 'partial',
      reasons: [{ code: 'MAINARK_NO_PARTIAL', subject: 'MAI-7' }],
    });
  });

  it('a lifecycle step: accepted → success, rejected → failed, superseded → partial', async () => {
    const step = (status: string) =>
      deriveStatus(
        base('kxm', { status, extra: { lifecycle: { action: 'x', from: 'pending', to: status } } }),
        none,
      );
    expect(await step('accepted')).toMatchObject({ ok: true, status: 'success', reasons: [] });
    expect(await step('rejected')).toMatchObject({ ok: true, status: 'failed' });
    expect(await step('superseded')).toMatchObject({ ok: true, status: 'partial' });
    expect(await step('pending')).toMatchObject({ ok: false });
  });

  it('any other format without its source cannot have been recorded: a problem, exact for v2, with a caveat for v1', async () => {
    const v2 = await deriveStatus(base('structured', { status: 'completed' }), none);
    expect(v2).toMatchObject({ ok: false, problem: expect.stringMatching(/without its source/) });
    expect(v2).not.toHaveProperty('caveat');
    const v1 = await deriveStatus(
      { ...base('structured', { status: 'completed' }), schema: RECORD_SCHEMA_V1 },
      none,
    );
    expect(v1).toMatchObject({ ok: false, caveat: expect.stringMatching(/v1/) });
  });

  it('a kept source that no longer parses is a problem, not a status', async () => {
    const broken = await deriveStatus(
      {
        ...base('structured', { status: 'completed' }),
        observed: { recordedAt: AT, witnesses: [], input: { root: '/r' } },
      },
      { source: new TextEncoder().encode('{"status": '), attachments: new Map() },
    );
    expect(broken).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/does not parse as structured/),
    });
  });
});
