/**
 * Text with no UTF-8 form: a lone surrogate, half of a UTF-16 pair with no other half. A JSON
 * `\udc9b` escape parses to one (Python's `json.dumps` writes it for a byte read with
 * surrogateescape), and a JavaScript string can hold one, but no record can: the canonical
 * encoding refuses it (src/canonical/cbor.ts). So every input that can carry one — a JSON or
 * YAML handoff, the library's and the MCP server's arguments — is checked here first, and it is
 * the input's problem, named by its field, never an internal error at encoding time.
 */
import type { Problem } from './errors.js';

const LONE_SURROGATE = /\p{Cs}/u;

/** The first lone surrogate in `text`, as its `\u` escape and character index. */
function loneSurrogate(text: string): { escape: string; at: number } | undefined {
  const found = LONE_SURROGATE.exec(text);
  if (found === null) return undefined;
  return { escape: `\\u${found[0].charCodeAt(0).toString(16)}`, at: found.index };
}

/** The problem of one string with no UTF-8 form, at `path`; undefined when it has one. */
export function illFormedText(path: string, text: string, what = 'the text'): Problem | undefined {
  const lone = loneSurrogate(text);
  if (lone === undefined) return undefined;
  return {
    path,
    message: `${what} has no UTF-8 form, so it cannot be stored: a lone surrogate ${lone.escape} at character ${lone.at} (half of a UTF-16 pair, as a JSON \\u escape of a byte that is not UTF-8 gives); write the character itself, or leave it out`,
    expected: 'text with a UTF-8 form (no lone surrogate)',
    got: lone.escape,
  };
}

/** How many strings with no UTF-8 form are named one by one; the rest are counted. */
export const MAX_NAMED = 20;

/**
 * The keys and strings with no UTF-8 form in a plain value (what JSON or YAML parses to), each
 * named by its path (`decisions[0].reason`, as src/formats/kit/problems.ts names fields): the
 * first `MAX_NAMED`, then one problem counting the rest. A hostile handoff of a million such
 * strings would otherwise be answered with a million problems, hundreds of megabytes of error.
 */
export function illFormedStrings(value: unknown, path = ''): Problem[] {
  const problems: Problem[] = [];
  let more = 0;
  const add = (problem: Problem | undefined) => {
    if (problem === undefined) return;
    if (problems.length < MAX_NAMED) problems.push(problem);
    else more++;
  };
  const walk = (v: unknown, at: string, depth: number): void => {
    // Deeper than any reader accepts (src/formats/kit/json.ts): nothing of it is stored.
    if (depth > 128) return;
    if (typeof v === 'string') add(illFormedText(at, v));
    else if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${at}[${i}]`, depth + 1));
    else if (v !== null && typeof v === 'object')
      for (const [key, child] of Object.entries(v)) {
        const keyPath = at === '' ? key : `${at}.${key}`;
        add(illFormedText(keyPath, key, 'the key'));
        walk(child, keyPath, depth + 1);
      }
  };
  walk(value, path, 0);
  if (more > 0)
    problems.push({
      path: path === '' ? '(more)' : path,
      message: `and ${more} more key(s) or string(s) with no UTF-8 form, not named one by one`,
    });
  return problems;
}
