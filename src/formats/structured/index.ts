/**
 * structured-handoff (seed 004): a `## Handoff` Markdown block with labelled fields, or the
 * same fields as JSON; exact enums, every field required. See README.md in this folder.
 */
import type { LedgerRecord } from '../../model/record.js';
import type { Detection, FormatModule, Sniff, Uncheckable } from '../contract.js';
import { isPlainObject } from '../kit/json.js';
import { isObject, str } from '../kit/values.js';
import { emitStructured } from './emit.js';
import { parseStructured } from './parse.js';
import { STRUCTURED_VOCABULARY } from './shape.js';

function detect(input: Sniff): Detection {
  const value = input.json();
  if (value !== undefined) {
    if (!isPlainObject(value)) return { score: 0, signals: [] };
    const has = (k: string): boolean => Object.hasOwn(value, k);
    if (has('status') && has('verification') && has('recommended_next_stage'))
      return {
        score: 0.95,
        signals: ['JSON with status, verification and recommended_next_stage'],
      };
    if (has('status') && has('verification') && has('findings'))
      return { score: 0.7, signals: ['JSON with status, verification and findings'] };
    if (has('recommended_next_stage'))
      return { score: 0.5, signals: ['JSON with recommended_next_stage'] };
    return { score: 0, signals: [] };
  }
  const text = input.text();
  if (text === null) return { score: 0, signals: [] };
  const heading = /^ {0,3}#{1,6}[ \t]+handoff[ \t]*#*[ \t]*$/im.test(text);
  const status = /^\s*[*_]*status[*_]*\s*:[*_]*\s*(completed|blocked|failed)\s*$/im.test(text);
  const fields = /^\s*[*_]*(verification|findings|recommended next stage)[*_]*\s*:/im.test(text);
  const signals = [
    ...(heading ? ['a "## Handoff" heading'] : []),
    ...(status ? ['a "Status: completed|blocked|failed" line'] : []),
    ...(fields ? ['Verification/Findings/Recommended next stage labels'] : []),
  ];
  const score =
    heading && status ? 0.95 : heading && fields ? 0.7 : status && fields ? 0.6 : heading ? 0.3 : 0;
  return { score, signals };
}

/** Artifact entries that are prose, not paths: verify cannot check them. */
function uncheckable(record: LedgerRecord): Uncheckable[] {
  const prose = record.claims.extra?.['proseArtifacts'];
  if (!Array.isArray(prose)) return [];
  return prose.filter(isObject).map((p, i) => ({
    id: `claims.extra.proseArtifacts[${i}]`,
    subject: str(p['text']) ?? '',
    reason: `${str(p['why']) ?? 'not a path'}: ledger cannot check it`,
  }));
}

export const structured: FormatModule = {
  name: 'structured',
  title: 'structured-handoff skill',
  readerRevision: 4,
  detect,
  parse: parseStructured,
  statusOf: STRUCTURED_VOCABULARY.statusOf,
  wordFor: STRUCTURED_VOCABULARY.wordFor,
  reasonCodes: {
    STRUCTURED_COMPLETED_WITHOUT_VERIFICATION:
      'completed, but no verification ran and the task is not documentation-only with a stated reason: partial',
    STRUCTURED_COMPLETED_WITH_FAILED_VERIFICATION:
      'completed, but a verification row failed: failed',
    STRUCTURED_COMPLETED_WITH_BLOCKING_FINDING: 'completed with a block finding: partial',
    STRUCTURED_NO_VERIFICATION_ROW:
      'no verification row (the skill asks for a skipped one): a note',
    STRUCTURED_SKIP_WITHOUT_REASON: 'a skipped row that does not say why: a note',
  },
  emitters: [
    {
      name: 'structured',
      title: 'structured handoff (Markdown, or JSON for a JSON record)',
      emit: emitStructured,
    },
  ],
  verify: { uncheckable },
};
