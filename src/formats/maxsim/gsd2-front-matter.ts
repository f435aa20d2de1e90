/**
 * GSD-2's own reading of a summary's front matter, for a GSD-2 summary whose front matter YAML
 * refuses. GSD-2 does not parse YAML: `parseFrontmatterMap` in gsd-build/gsd-2
 * `src/resources/extensions/shared/frontmatter.ts` (unchanged since baa42b72d; read at 76568edc0)
 * reads it line by line, and its agents write what that reader takes and YAML does not:
 * `` - `bun run verify` — what it shows ``, `- @bot review trigger`, `- stderr: "x" on failure`,
 * `duration: ~5h (S01: ~4h)` (about fifty of xbmc/kodiai's 725 summaries, refused before with the
 * line YAML stopped at). Its rules, followed here:
 *
 * - `key: value` at column 0, the key `[\w][\w_-]*`: the value trimmed, one pair of matching outer
 *   quotes stripped and nothing unescaped, everything after the first colon kept (`a: [x]: y` is
 *   the text `[x]: y`);
 * - `key: [a, b]` (the value starts with `[` and ends with `]`): the inner text split at every
 *   comma, each item trimmed, quotes kept; `key:` or `key: []` opens a list;
 * - `  - item` (two spaces): an item of the open list, its quotes stripped, or — when the item is
 *   `word: value` — a map, to which `    word: value` lines (four spaces) add keys.
 *
 * GSD-2 skips every other line without a word, and with it what it says: a list item after a
 * blank line, a nested map, a continuation line. A document's files and status must not differ
 * between what it says and what is recorded, so here such a line is not skipped: the front matter
 * stays refused, naming it. So is a repeated key (GSD-2's TypeScript reader keeps the last, its
 * opt-in native reader the first) and a flow list whose comma split cuts a quoted item (GSD-2's
 * items would be the pieces). The native reader (`native/crates/engine/src/gsd_parser.rs`, used
 * only with GSD_ENABLE_NATIVE_GSD_PARSER=1) differs on quotes and hyphenated keys, never on the
 * shapes read here.
 */
import type { Problem } from '../../model/errors.js';
import { readFrontMatter, type FrontMap, type FrontValue } from '../kit/front-matter.js';
import { checkKeys } from '../kit/json.js';

const KEY = /^([\w][\w_-]*)\s*:\s*(.*)$/;
const ITEM = /^ {2}- ?(.*)$/;
const NESTED = /^ {4}([\w][\w_-]*)\s*:\s*(.*)$/;

/** An own key, whatever its name: `__proto__: x` is a key here (refused after), not a prototype. */
function set(map: FrontMap, key: string, value: FrontValue): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

/** One pair of matching outer quotes stripped, as GSD-2's `stripQuotes` does (no unescaping). */
function stripQuotes(s: string): string {
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0])
    return s.slice(1, -1);
  return s;
}

/**
 * An item GSD-2's comma split cut inside its quotes: it opens a quote it does not close at its
 * end (`"a, b"` is cut into `"a` and `b"`; the first piece of any cut starts so).
 */
function cutQuoted(item: string): boolean {
  const q = item[0];
  if (q !== '"' && q !== "'") return false;
  return item.length < 2 || item[item.length - 1] !== q || item.slice(1, -1).includes(q);
}

/**
 * The front matter as GSD-2 reads it, or the first line it would skip or read ambiguously, with
 * its document line (+1 for the opening `---`).
 */
export function readGsd2FrontMatter(
  raw: string,
): { ok: true; value: FrontMap } | { ok: false; problems: Problem[] } {
  const result: FrontMap = {};
  let list: FrontValue[] | undefined;
  let map: FrontMap | undefined;
  const refuse = (i: number, line: string, why: string) => ({
    ok: false as const,
    problems: [
      {
        path: 'frontMatter',
        message: `front matter line ${i + 2}: ${why}, so it is not read as GSD-2 reads it either`,
        expected: "GSD-2's front matter: key: value, key: [a, b], and two-space - items",
        got: line.slice(0, 120),
      },
    ],
  });
  const lines = raw.split('\n');
  for (const [i, line] of lines.entries()) {
    const nested = NESTED.exec(line);
    if (nested && list !== undefined && map !== undefined) {
      set(map, nested[1] ?? '', (nested[2] ?? '').trim());
      continue;
    }
    const item = ITEM.exec(line);
    if (item && list !== undefined) {
      map = undefined;
      const val = (item[1] ?? '').trim();
      const pair = KEY.exec(val);
      if (pair) {
        map = {};
        set(map, pair[1] ?? '', (pair[2] ?? '').trim());
        list.push(map);
      } else list.push(stripQuotes(val));
      continue;
    }
    // `requires:` over `  []` (GSD-2's slice template): GSD-2 skips the line and reads the empty
    // list `requires:` opened, as YAML reads the pair; nothing can follow into that list.
    const empty = list !== undefined && list.length === 0 && line.trim() === '[]';
    list = undefined;
    map = undefined;
    if (empty) continue;
    const kv = KEY.exec(line);
    if (!kv) {
      // A comment or a blank line says nothing; any other line GSD-2 would drop without a word.
      if (!item && /^\s*(?:#.*)?$/.test(line)) continue;
      const why = item
        ? 'a list item under no open list (after a blank line, a comment or a key with a value), which GSD-2 skips'
        : /^\s/.test(line)
          ? 'an indented line GSD-2 skips (only two-space - items and their four-space keys are read)'
          : 'a line that is neither key: value nor a list item, which GSD-2 skips';
      return refuse(i, line, why);
    }
    const key = kv[1] ?? '';
    if (Object.hasOwn(result, key))
      return refuse(i, line, `${key} is written twice (GSD-2's two readers keep different ones)`);
    const val = (kv[2] ?? '').trim();
    if (val === '' || val === '[]') {
      list = [];
      set(result, key, list);
    } else if (val.startsWith('[') && val.endsWith(']')) {
      const inner = val.slice(1, -1).trim();
      const items = inner === '' ? [] : inner.split(',').map((s) => s.trim());
      if (items.some(cutQuoted))
        return refuse(i, line, `GSD-2 splits ${key}'s list at every comma, inside quotes too`);
      // Items wholly quoted are the text inside (what YAML and the writer meant; no comma cut).
      set(result, key, items.map(stripQuotes));
    } else set(result, key, stripQuotes(val));
  }
  // Prototype keys and depth, as for YAML's front matter.
  const problems: Problem[] = [];
  checkKeys(result, 'frontMatter', 0, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: result };
}

/**
 * The summary's front matter: YAML, or — for a GSD-2 summary YAML refuses — what GSD-2's own
 * line reader takes from it (above: `` - `cmd` — what `` items, `a: b: c`). What
 * neither reads stays refused: YAML's located problems, then the line GSD-2's rules cannot read.
 */
export function summaryFrontMatter(
  raw: string,
  gsd2: boolean,
): { fm: FrontMap } | { problems: Problem[] } {
  const fm = readFrontMatter(raw);
  if (fm.ok) return { fm: fm.value };
  if (!gsd2) return { problems: fm.problems };
  const own = readGsd2FrontMatter(raw);
  if (own.ok) return { fm: own.value };
  return { problems: [...fm.problems, ...own.problems] };
}
