/**
 * Loss reports, computed from what a target shape can carry rather than listed by hand per
 * emitter: a present claim field the target has no place for is named (`claims.deferred`),
 * item-level losses are added by the emitter where only part of an item fits
 * (`claims.artifacts[2].sha256`), and the ledger-authored half is named by what of it the target
 * keeps. Every entry starts with the field path, optionally followed by a reason in parentheses.
 */
import { statusRank, type LedgerRecord } from '../../model/record.js';
import type { Emitted, ParseContext, ParsedHandoff, ParseResult } from '../contract.js';
import { CLAIM_FIELDS, type ClaimField } from './claims.js';

/** Claims fields that are present and carry something (non-empty lists, defined values). */
export function presentClaims(record: LedgerRecord): Set<ClaimField> {
  const present = new Set<ClaimField>();
  for (const field of CLAIM_FIELDS) {
    const value = record.claims[field];
    if (value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (field === 'extra' && Object.keys(value as object).length === 0) continue;
    present.add(field);
  }
  return present;
}

/** `claims.<field>` for every present field outside `carries` (status is handled by meaning). */
export function uncarriedClaims(record: LedgerRecord, carries: readonly ClaimField[]): string[] {
  const out: string[] = [];
  for (const field of presentClaims(record)) {
    if (field === 'status') continue;
    if (!carries.includes(field)) out.push(`claims.${field}`);
  }
  return out;
}

export type ObservedPart =
  'witnesses' | 'artifacts' | 'anchors' | 'branch' | 'evidence' | 'producer';

/** What of the ledger-authored half a target does not keep (informational: it is re-observed). */
export function observedLosses(record: LedgerRecord, kept: readonly ObservedPart[] = []): string[] {
  const o = record.observed;
  const out: string[] = [];
  if (!kept.includes('anchors')) out.push('observed.base', 'observed.candidate');
  if (o.producer !== undefined && !kept.includes('producer')) out.push('observed.producer');
  if (o.branch !== undefined && !kept.includes('branch')) out.push('observed.branch');
  if (o.artifacts.length > 0 && !kept.includes('artifacts')) out.push('observed.artifacts');
  if (o.witnesses.length > 0 && !kept.includes('witnesses')) out.push('observed.witnesses');
  if (o.evidence.length > 0 && !kept.includes('evidence')) out.push('observed.evidence');
  return out;
}

/** De-duplicated, in first-seen order. */
export function uniqueLosses(losses: readonly string[]): string[] {
  return [...new Set(losses)];
}

type Parse = (bytes: Uint8Array, context: ParseContext) => ParseResult;
type TextField = 'summary' | 'nextStep' | 'assumptions' | 'openQuestions';

/**
 * Reads a rendering back with its own module, as `record` would read it, and names what did
 * not survive: free-text fields that a line inside them cut short, and the effective status
 * when the target's rules make something else of the rendering (a success without evidence).
 */
export function readBackLosses(
  record: LedgerRecord,
  text: string,
  parse: Parse,
  rules: string,
  fields: readonly TextField[] = [],
  more?: (back: ParsedHandoff) => string[],
): string[] {
  const input = record.observed.input;
  const back = parse(new TextEncoder().encode(text), {
    repoRoot: input?.root ?? '/',
    now: new Date(record.observed.recordedAt),
    ...(input?.fileName === undefined ? {} : { fileName: input.fileName }),
  });
  const losses: string[] = [];
  if (back.ok)
    for (const field of fields)
      if (
        JSON.stringify(back.handoff.claims[field] ?? '') !==
        JSON.stringify(record.claims[field] ?? '')
      )
        losses.push(`claims.${field} (does not read back as itself)`);
  if (back.ok && more) losses.push(...more(back.handoff));
  const effective = record.observed.effectiveStatus;
  const again = back.ok ? back.handoff.status : undefined;
  if (again !== effective) {
    const lower = again !== undefined && statusRank(again) > statusRank(effective);
    // Name the rules the rendering breaks (a team result with no Confidence: the source stated
    // none and an emitter never invents one), so the loss says what to add, not only that.
    const had = new Set(record.observed.reasons.map((r) => r.code));
    const why = back.ok ? back.handoff.reasons.filter((r) => !had.has(r.code)) : [];
    const because =
      why.length > 0
        ? `: read back, ${why.map((r) => r.message).join('; ')}`
        : lower
          ? ': it cannot carry what made it so'
          : '';
    losses.push(
      `observed.effectiveStatus (${effective}; ${rules} make this rendering ${again ?? 'unreadable'}${because})`,
    );
  }
  return losses;
}

/**
 * The end of every emitter: the fields the shape has no place for, the ledger-authored half it
 * does not keep, and what reading the rendering back shows — de-duplicated, after the
 * emitter's own item-level losses.
 */
export function finishLosses(
  record: LedgerRecord,
  losses: readonly string[],
  shape: {
    carries: readonly ClaimField[];
    /** Its own format's extras travel when the record came in this format. */
    own: boolean;
    keeps?: readonly ObservedPart[];
    text: string;
    parse: Parse;
    rules: string;
    fields?: readonly TextField[];
    more?: (back: ParsedHandoff) => string[];
  },
): string[] {
  return uniqueLosses([
    ...losses,
    ...uncarriedClaims(record, [...shape.carries, ...(shape.own ? (['extra'] as const) : [])]),
    ...observedLosses(record, shape.keeps ?? []),
    ...readBackLosses(record, shape.text, shape.parse, shape.rules, shape.fields ?? [], shape.more),
  ]);
}

/** An emitter's result: the rendering and its finished loss report. */
export function emitted(
  record: LedgerRecord,
  text: string,
  losses: readonly string[],
  shape: Omit<Parameters<typeof finishLosses>[2], 'text'>,
): Emitted {
  return {
    bytes: new TextEncoder().encode(text),
    losses: finishLosses(record, losses, { ...shape, text }),
  };
}

/** The record's extras when it came in `format` (its own bookkeeping), else nothing. */
export function ownExtra(record: LedgerRecord, format: string): Record<string, unknown> {
  const extra = record.claims.extra;
  return record.format === format && extra !== undefined ? extra : {};
}

/** Whether two JSON-like values are equal, whatever order their keys were written in. */
export function sameValue(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, x]) => x !== undefined)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, x]) => [k, canonical(x)]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** `claims.<field>[i] (why)` for every item that does not read back as itself. */
export function itemLosses(
  field: ClaimField,
  want: readonly unknown[],
  got: readonly unknown[],
  why: string,
): string[] {
  return want.flatMap((w, i) => (sameValue(w, got[i]) ? [] : [`claims.${field}[${i}] (${why})`]));
}
