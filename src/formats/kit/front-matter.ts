/**
 * YAML front matter (`---` … `---` at the top of a Markdown handoff), read with the `yaml`
 * package rather than by hand: a hand-written subset read `a:\n  b:\n    c: 1` as
 * `{a: {b: null, c: "1"}}` without a word. What comes back is plain JSON-like data (the record
 * keeps no floats, no tags, no binary); everything else is a located problem.
 */
import { isMap, isScalar, isSeq, parseDocument, visit } from 'yaml';
import type { Problem } from '../../model/errors.js';
import { checkKeys } from './json.js';
import { toJsonLike } from './values.js';

export type FrontValue = string | number | boolean | null | FrontValue[] | FrontMap;
export type FrontMap = { [key: string]: FrontValue };

/** Splits leading front matter from the body; null when the text does not start with it. */
export function splitFrontMatter(text: string): { raw: string; body: string } | null {
  const m = /^---[ \t]*\n([\s\S]*?\n)?---[ \t]*(?:\n|$)/.exec(text);
  if (!m) return null;
  return { raw: (m[1] ?? '').replace(/\n$/, ''), body: text.slice(m[0].length) };
}

/** Reads front matter YAML into a map; every problem located (`frontMatter`, with its line). */
export function readFrontMatter(
  raw: string,
): { ok: true; value: FrontMap } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const doc = parseDocument(raw, { uniqueKeys: true, schema: 'core', prettyErrors: false });
  for (const error of [...doc.errors, ...doc.warnings]) {
    // linePos is only filled with prettyErrors; the offset is always there. Lines count from the
    // document's first line: +1 for the opening `---`.
    const at = Math.max(0, Math.min(error.pos[0], raw.length));
    const before = raw.slice(0, at);
    const line = before.split('\n').length + 1;
    const col = at - (before.lastIndexOf('\n') + 1) + 1;
    problems.push({
      path: 'frontMatter',
      message: `front matter line ${line}, column ${col}: ${(error.message.split('\n')[0] ?? error.code).replace(/ at line \d+, column \d+$/, '')}`,
      expected: 'YAML mappings, sequences and scalars',
      got: error.code,
    });
  }
  visit(doc, (_key, node) => {
    if ((isScalar(node) || isMap(node) || isSeq(node)) && node.tag !== undefined) {
      const plain = ['tag:yaml.org,2002:str', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:null'];
      if (!plain.includes(node.tag))
        problems.push({
          path: 'frontMatter',
          message: `explicit YAML tag ${node.tag} is not accepted in front matter`,
          expected: 'untagged values',
          got: node.tag,
        });
    }
  });
  if (problems.length > 0) return { ok: false, problems };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return {
      ok: false,
      problems: [
        {
          path: 'frontMatter',
          message: `front matter cannot be read: ${(error as Error).message}`,
          expected: 'YAML without alias bombs',
        },
      ],
    };
  }
  if (value === null || value === undefined) return { ok: true, value: {} };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      problems: [
        {
          path: 'frontMatter',
          message: 'front matter is not a mapping of keys to values',
          expected: 'key: value lines',
          got: typeof value,
        },
      ],
    };
  }
  const keyProblems: Problem[] = [];
  checkKeys(value, 'frontMatter', 0, keyProblems);
  if (keyProblems.length > 0) return { ok: false, problems: keyProblems };
  return { ok: true, value: toJsonLike(value) as FrontMap };
}

function scalar(value: FrontValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(scalar).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}: ${scalar(v)}`)
    .join(', ')}}`;
}

/**
 * Writes front matter in the templates' style: double-quoted strings (JSON escapes are valid
 * YAML escapes), flow lists, nested maps indented by two spaces. readFrontMatter reads it back
 * to the same value (tested).
 */
export function writeFrontMatter(fm: FrontMap): string {
  const out: string[] = ['---'];
  const write = (map: FrontMap, indent: string): void => {
    for (const [key, value] of Object.entries(map)) {
      const k = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : JSON.stringify(key);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        if (Object.keys(value).length === 0) out.push(`${indent}${k}: {}`);
        else {
          out.push(`${indent}${k}:`);
          write(value, `${indent}  `);
        }
      } else out.push(`${indent}${k}: ${scalar(value)}`);
    }
  };
  write(fm, '');
  out.push('---');
  return out.join('\n');
}

/**
 * An item YAML read as a one-key map because it has `: ` in it (`- Engine isolation: a static
 * lib`, `- src/a.ts: the parser`): the text as written. Dropping such items dropped four of a
 * real milestone summary's seven decisions without a word.
 */
export function textOf(x: FrontValue): FrontValue {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return x;
  const entries = Object.entries(x);
  const [key, value] = entries[0] ?? [];
  if (entries.length !== 1 || key === undefined) return x;
  if (value === null) return key;
  return typeof value === 'string' || typeof value === 'number' ? `${key}: ${value}` : x;
}
