/**
 * The one safe JSON reader every JSON-shaped format uses: the size cap and strict UTF-8 of
 * text.ts, then no key that could reach an object's prototype (`__proto__`, `constructor`,
 * `prototype`) at any depth, no nesting deeper than any real handoff needs, and no string or key
 * with no UTF-8 form (a lone surrogate, src/model/well-formed.ts). Every failure
 * is a located Problem, never an exception.
 */
import type { Problem } from '../../model/errors.js';
import { illFormedStrings } from '../../model/well-formed.js';
import { decodeText, preview } from './text.js';

export const MAX_JSON_DEPTH = 64;
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);

export type JsonRead = { ok: true; value: unknown } | { ok: false; problems: Problem[] };

/** Reads JSON bytes; `expected` says what the format wanted, for the parse-error message. */
export function readJson(bytes: Uint8Array, expected = 'a JSON document'): JsonRead {
  const decoded = decodeText(bytes);
  return decoded.ok ? readJsonText(decoded.text, expected) : decoded;
}

export function readJsonText(text: string, expected = 'a JSON document'): JsonRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: `malformed JSON: ${sameOnEveryNode((error as Error).message)}`,
          expected,
          got: preview(text, 40),
        },
      ],
    };
  }
  const problems: Problem[] = [];
  checkKeys(value, '', 0, problems);
  // A `\udc9b` escape parses to a string no record can hold: refused here, where its path is known.
  if (problems.length === 0) problems.push(...illFormedStrings(value));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

/**
 * V8's words, without the ` (line 1 column 9)` that Node 22 and later add after `at position
 * 8`: a refusal's text is pinned per reader revision (test/formats/reader-revision.test.ts),
 * and the same bytes must read the same on every Node a team runs.
 */
function sameOnEveryNode(message: string): string {
  return message.replace(/( at position \d+) \(line \d+ column \d+\)$/, '$1');
}

/** Problems for prototype keys and excessive depth anywhere in a parsed value. */
export function checkKeys(value: unknown, path: string, depth: number, problems: Problem[]): void {
  if (depth > MAX_JSON_DEPTH) {
    problems.push({
      path,
      message: `nested deeper than ${MAX_JSON_DEPTH} levels`,
      expected: `at most ${MAX_JSON_DEPTH} levels`,
    });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkKeys(item, `${path}[${i}]`, depth + 1, problems));
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const child = path === '' ? key : `${path}.${key}`;
      if (FORBIDDEN_KEYS.has(key)) {
        problems.push({
          path: child,
          message: `the key "${key}" is not allowed in a handoff`,
          expected: 'no prototype keys',
          got: key,
        });
        continue;
      }
      checkKeys((value as Record<string, unknown>)[key], child, depth + 1, problems);
    }
  }
}

/** Whether the text starts like a JSON object or array (after whitespace). */
export function looksLikeJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
