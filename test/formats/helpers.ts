/**
 * What the format tests share: a module's detection score for bytes, and a record around a
 * parsed handoff (so that emitters, which render records, can be exercised in memory).
 */
import { expect } from 'vitest';
import {
  emitAs,
  type FormatModule,
  type ParseContext,
  type ParsedHandoff,
} from '../../src/formats/index.js';
import { createSniff } from '../../src/formats/kit/sniff.js';
import {
  Claims,
  Record as RecordSchema,
  type FormatName,
  type LedgerRecord,
} from '../../src/model/record.js';

export function score(module: FormatModule, bytes: Uint8Array, fileName?: string): number {
  return module.detect(createSniff(bytes, fileName)).score;
}

export function recordOf(
  h: ParsedHandoff,
  format: FormatName,
  observed: Partial<LedgerRecord['observed']> = {},
): LedgerRecord {
  return RecordSchema.parse({
    schema: 'ledger.record/v2',
    format,
    claims: h.claims,
    observed: {
      recordedAt: '2026-03-07T10:00:00.000Z',
      ledgerVersion: '0.1.0',
      base: { commit: 'a'.repeat(40), tree: 'b'.repeat(40) },
      candidate: { tree: 'c'.repeat(40) },
      artifacts: [],
      witnesses: [],
      evidence: [],
      effectiveStatus: h.status,
      reasons: h.reasons,
      ...observed,
    },
  }) as LedgerRecord;
}

/** The field paths a loss report names (each entry without its reason in parentheses). */
export function lossFields(losses: readonly string[]): string[] {
  return losses.map((l) => l.replace(/ \(.*$/s, ''));
}

/**
 * The property every parser holds on any input: a handoff whose claims fit the schema and whose
 * rendering in the module's own shape parses again, or a refusal with problems; never a throw.
 * The detection score stays within [0, 1].
 */
export function parsesOrRefuses(
  module: FormatModule,
  ctx: ParseContext,
): (bytes: Uint8Array) => void {
  return (bytes) => {
    const r = module.parse(bytes, ctx);
    expect(typeof r.ok).toBe('boolean');
    if (r.ok) {
      expect(Claims.safeParse(r.handoff.claims).success).toBe(true);
      const again = emitAs(module.name, recordOf(r.handoff, module.name)).bytes;
      expect(module.parse(again, ctx).ok).toBe(true);
    } else expect(r.problems.length).toBeGreaterThan(0);
    const d = score(module, bytes);
    expect(d >= 0 && d <= 1).toBe(true);
  };
}
