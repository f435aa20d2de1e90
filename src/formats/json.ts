/**
 * Reading JSON handoffs safely: a size cap before parsing, no prototype keys anywhere, and
 * every failure turned into a located Problem instead of an exception.
 */
import type { Problem } from '../model/errors.js';

export const MAX_HANDOFF_BYTES = 16 * 1024 * 1024;
const MAX_DEPTH = 64;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export type JsonResult =
  { ok: true; value: unknown; text: string } | { ok: false; problems: Problem[] };

export function decodeUtf8(
  bytes: Uint8Array,
): { ok: true; text: string } | { ok: false; problems: Problem[] } {
  if (bytes.length > MAX_HANDOFF_BYTES) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: `the handoff is ${bytes.length} bytes; at most ${MAX_HANDOFF_BYTES} are accepted`,
        },
      ],
    };
  }
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return {
      ok: false,
      problems: [{ path: '', message: 'the handoff is not valid UTF-8 text', expected: 'UTF-8' }],
    };
  }
}

export function parseJson(bytes: Uint8Array): JsonResult {
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return decoded;
  let value: unknown;
  try {
    value = JSON.parse(decoded.text);
  } catch (error) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: `malformed JSON: ${(error as Error).message}`,
          expected: 'a JSON document',
        },
      ],
    };
  }
  const problems: Problem[] = [];
  checkKeys(value, '', 0, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value, text: decoded.text };
}

function checkKeys(value: unknown, path: string, depth: number, problems: Problem[]): void {
  if (depth > MAX_DEPTH) {
    problems.push({ path, message: `nested deeper than ${MAX_DEPTH} levels` });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkKeys(item, `${path}[${i}]`, depth + 1, problems));
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const child = path === '' ? key : `${path}.${key}`;
      if (FORBIDDEN_KEYS.has(key)) {
        problems.push({ path: child, message: `the key "${key}" is not allowed in a handoff` });
        continue;
      }
      checkKeys((value as Record<string, unknown>)[key], child, depth + 1, problems);
    }
  }
}
