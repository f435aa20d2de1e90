/** Bytes → a team-orchestration input (a result, or one of the toolkit's JSON files). */
import type { ParseContext, ParseResult } from '../contract.js';
import { isPlainObject, looksLikeJson, readJsonText } from '../kit/json.js';
import { decodeText } from '../kit/text.js';
import {
  fileKind,
  parseFeatureList,
  parseInsightFile,
  parseInsightQueue,
  parseProgressFile,
  unknownKind,
} from './files.js';
import { parseResult } from './result.js';

export function parseTeam(bytes: Uint8Array, ctx: ParseContext): ParseResult {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  if (!looksLikeJson(decoded.text)) return parseResult(decoded.text, ctx);
  const read = readJsonText(
    decoded.text,
    'an insight, pending.json, claude-progress.json or feature-list.json object',
  );
  if (!read.ok) return read;
  if (!isPlainObject(read.value))
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: 'expected a JSON object',
          expected: 'an object',
          got: Array.isArray(read.value) ? 'an array' : typeof read.value,
        },
      ],
    };
  switch (fileKind(read.value, ctx.fileName)) {
    case 'insight':
      return parseInsightFile(read.value);
    case 'insights':
      return parseInsightQueue(read.value);
    case 'progress':
      return parseProgressFile(read.value, ctx);
    case 'features':
      return parseFeatureList(read.value);
    default:
      return { ok: false, problems: [unknownKind()] };
  }
}
