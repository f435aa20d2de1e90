/**
 * Bytes → the agent partial → claims. The partial states no status: a valid one records as
 * success (the reviewer decides); whether validation logs were given is a note.
 */
import type { ParseContext, ParseResult } from '../contract.js';
import { readJson } from '../kit/json.js';
import { partialToHandoff, taskFromFileName, validateMainarkPartial } from './partial.js';

export function parseMainark(bytes: Uint8Array, context: ParseContext): ParseResult {
  const read = readJson(bytes, 'the agent partial (a JSON object)');
  if (!read.ok) return read;
  const v = validateMainarkPartial(read.value);
  if (!v.ok) return v;
  const handoff = partialToHandoff(v.partial, bytes, taskFromFileName(context.fileName));
  if (context.attachments === undefined || context.attachments.size === 0)
    // Mainark records not_run rather than inventing evidence; no status effect.
    handoff.reasons.push({
      code: 'MAINARK_VALIDATION_NOT_RUN',
      message: 'no validation log was named on the command line: validation is not_run',
    });
  return { ok: true, handoff };
}
