/**
 * Two shapes of a record for Mainark: the agent partial (`mainark`, what an implementer writes
 * and what `record` reads — so a converted record can be recorded again) and the review
 * request (`mainark-review`, the ReviewRequestHandoff Mainark builds from a partial, with the
 * Mainark-authored fields filled from what ledger observed).
 */
import type { LedgerRecord } from '../../model/record.js';
import type { EmitContext, Emitted } from '../contract.js';
import { emitted, uniqueLosses } from '../kit/losses.js';
import { encodeText } from '../kit/text.js';
import { compact, isObject, objectAt, strings, type Json } from '../kit/values.js';
import { parseMainark } from './parse.js';
import { mainarkValidation } from './views.js';

const FILE_SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

export function emitPartial(record: LedgerRecord, context: EmitContext): Emitted {
  const own = record.format === 'mainark';
  const c = record.claims;
  const x = own && isObject(c.extra) ? c.extra : {};
  const losses: string[] = [];
  const claimsOwn = strings(x['claims']);
  const claims =
    claimsOwn ??
    (c.decisions ?? []).flatMap((d, i) => {
      if (d.reason !== undefined)
        losses.push(`claims.decisions[${i}].reason (a claim is one string)`);
      if (d.text.trim() === '') {
        losses.push(`claims.decisions[${i}] (an empty claim is refused)`);
        return [];
      }
      return [d.text];
    });
  const uncertainty =
    strings(x['uncertainty']) ??
    (c.openQuestions ?? []).filter((q, i) => {
      if (q.trim() !== '') return true;
      losses.push(`claims.openQuestions[${i}] (an empty entry is refused)`);
      return false;
    });
  const request = objectAt(x, 'request');
  const focus = request['focus'] ?? c.nextStep;
  const partial = compact({
    claims: claims.length > 0 || claimsOwn !== undefined ? claims : undefined,
    uncertainty:
      uncertainty.length > 0 || strings(x['uncertainty']) !== undefined ? uncertainty : undefined,
    context: isObject(x['context']) ? (x['context'] as Json) : undefined,
    request:
      focus === undefined || focus === ''
        ? isObject(x['request'])
          ? {}
          : undefined
        : { focus: focus as Json },
  });
  if (c.nextStep !== undefined && c.nextStep.trim() === '')
    losses.push('claims.nextStep (an empty focus is refused)');
  let fileName: string | undefined;
  if (c.task !== undefined) {
    if (FILE_SAFE.test(c.task)) fileName = `handoff-${c.task}.partial.json`;
    else
      losses.push(
        'claims.task (Mainark names the task in the file name; this one cannot be a file name)',
      );
  }
  if (context.claimedMeaning !== undefined)
    losses.push(`claims.status (${c.status}: a partial carries no status)`);
  const out = emitted(record, `${JSON.stringify(partial, null, 2)}\n`, losses, {
    carries: ['decisions', 'openQuestions', 'nextStep', 'task'],
    own,
    // A partial has no status: Mainark's rules record it as success, whatever was claimed.
    parse: (bytes, ctx) =>
      parseMainark(bytes, { ...ctx, ...(fileName === undefined ? {} : { fileName }) }),
    rules: "Mainark's rules",
  });
  return fileName === undefined ? out : { ...out, fileName };
}

/** The ReviewRequestHandoff (Mainark-authored fields + the agent part) for any record. */
export function emitReviewRequest(record: LedgerRecord): Emitted {
  const c = record.claims;
  const o = record.observed;
  const losses: string[] = [];
  const x = record.format === 'mainark' && isObject(c.extra) ? c.extra : {};
  const claims =
    strings(x['claims']) ??
    (c.decisions ?? []).map((d) => (d.reason === undefined ? d.text : `${d.text} (${d.reason})`));
  if (strings(x['claims']) === undefined && c.decisions?.some((d) => d.reason !== undefined))
    losses.push('claims.decisions[].reason (folded into the claim text)');
  const uncertainty = strings(x['uncertainty']) ?? [
    ...(c.openQuestions ?? []),
    ...(c.assumptions ?? []),
  ];
  if (strings(x['uncertainty']) === undefined && c.assumptions !== undefined)
    losses.push('claims.assumptions (merged into uncertainty)');
  const abandoned = strings(objectAt(x, 'context')['abandonedApproaches']);
  const focus = objectAt(x, 'request')['focus'] ?? c.nextStep;
  const state: Record<string, Json> = {
    claimedStatus: c.status,
    effectiveStatus: o.effectiveStatus,
    baseCommit: o.base.commit,
    baseTree: o.base.tree,
    candidateTree: o.candidate.tree,
    recordedAt: o.recordedAt,
  };
  if (o.branch !== undefined) state['branch'] = o.branch;
  if (o.reasons.length > 0) state['reasons'] = o.reasons.map((r) => r.code);
  const handoff: Record<string, Json> = {
    type: 'review_request',
    task: c.task ?? null,
    producer: o.producer ?? null,
    intent: c.intent ?? c.summary ?? null,
    artifacts: o.artifacts.map((a) => ({ path: a.path, sha256: a.sha256, size: a.size })),
    state,
    validation: mainarkValidation(record) as unknown as Json,
    request: { action: 'review', ...(focus === undefined ? {} : { focus: focus as Json }) },
    claims,
    uncertainty,
    context: abandoned === undefined ? {} : { abandonedApproaches: abandoned },
  };
  if (c.intent !== undefined && c.summary !== undefined) losses.push('claims.summary');
  for (const field of [
    'deferred',
    'findings',
    'references',
    'confidence',
    'insights',
    'checks',
    'anchors',
    'run',
    'attempt',
    'reworkOf',
  ] as const)
    if (c[field] !== undefined) losses.push(`claims.${field}`);
  if (c.artifacts !== undefined)
    losses.push('claims.artifacts (Mainark lists only artifacts ledger observed)');
  const known = new Set(['claims', 'uncertainty', 'context', 'request', 'handoffStats']);
  for (const k of Object.keys(c.extra ?? {}))
    if (record.format !== 'mainark' || !known.has(k)) losses.push(`claims.extra.${k}`);
  if (o.witnesses.length > 0) losses.push('observed.witnesses');
  return {
    bytes: encodeText(`${JSON.stringify(handoff, null, 2)}\n`),
    losses: uniqueLosses(losses),
  };
}
