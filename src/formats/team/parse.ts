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
      return parseInsightFile(read.value, ctx, decoded.text);
    case 'insights':
      return parseInsightQueue(read.value, ctx, decoded.text);
    case 'progress':
      return lookAlike(
        parseProgressFile(read.value, ctx),
        read.value,
        'claude-progress.json',
        ctx.fileName,
      );
    case 'features':
      return lookAlike(parseFeatureList(read.value), read.value, 'feature-list.json', ctx.fileName);
    default:
      return { ok: false, problems: [unknownKind()] };
  }
}

/**
 * A toolkit file's shape errors on a file without the toolkit's workspaceId: say what the file
 * was taken for and what it seems to be, not only "fix the listed fields" (issue 20: another
 * harness's feature-list.json was refused as if it were a broken toolkit file). A file named as
 * the other toolkit file (a `claude-progress.json` holding a `features` array, taken for a
 * feature list by its shape) is named as the file it is.
 */
function lookAlike(
  result: ParseResult,
  value: Record<string, unknown>,
  file: string,
  fileName: string | undefined,
): ParseResult {
  if (result.ok || typeof value['workspaceId'] === 'string') return result;
  const named = /(?:^|[\\/])(claude-progress\.json|feature-list\.json)$/i.exec(fileName ?? '')?.[1];
  const other = named !== undefined && named.toLowerCase() !== file ? named : undefined;
  const why =
    file === 'feature-list.json' ? 'by its shape (a features array)' : 'by its shape (its keys)';
  return {
    ok: false,
    problems: [
      {
        path: '',
        message:
          other === undefined
            ? `read as Spec-Workflow-Toolkit's ${file} (by its shape or name), but it has no workspaceId and does not match that file's fields: it seems to be another tool's ${file}`
            : `read as Spec-Workflow-Toolkit's ${file} ${why}, though it is named ${other}; it has no workspaceId and does not match that file's fields: it seems to be another tool's ${other}`,
        expected: `Spec-Workflow-Toolkit's ${file}, with a workspaceId`,
        got: `a file without workspaceId (keys: ${Object.keys(value).slice(0, 8).join(', ')})`,
      },
      ...result.problems,
    ],
  };
}
