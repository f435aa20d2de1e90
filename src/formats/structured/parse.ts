/** Bytes → a structured handoff (either shape) → claims, status and reasons. */
import type { Problem } from '../../model/errors.js';
import type { ParseContext, ParseResult } from '../contract.js';
import { claimsProblems } from '../kit/claims.js';
import { looksLikeJson } from '../kit/json.js';
import { decodeText } from '../kit/text.js';
import { toJsonLike } from '../kit/values.js';
import { readJsonShape, readMarkdown } from './read.js';
import { toClaims } from './rules.js';

export function parseStructured(bytes: Uint8Array, ctx: ParseContext): ParseResult {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  const text = decoded.text;
  const problems: Problem[] = [];
  const json = looksLikeJson(text);
  const extra: Record<string, unknown> = { shape: json ? 'json' : 'markdown' };
  const shape = json ? readJsonShape(text, problems) : readMarkdown(text, problems, extra);
  if (shape === null || problems.length > 0) return { ok: false, problems };
  const { claims, status, reasons } = toClaims(shape, ctx, extra);
  claims.extra = toJsonLike(claims.extra) as Record<string, unknown>;
  const claimProblems = claimsProblems(claims);
  if (claimProblems.length > 0) return { ok: false, problems: claimProblems };
  return { ok: true, handoff: { claims, status, reasons } };
}
