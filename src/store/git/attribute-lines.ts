/**
 * One line of a `.gitattributes` file, read and written as git 2.39's attr.c reads it, so that
 * merge-attributes.ts can say a nested file's line from the root without changing what it
 * says. Text here is bytes, one character per byte (latin1): git matches bytes, and a name or
 * pattern that is not UTF-8 must come out as it went in.
 *
 * What git does (attr.c, quote.c; checked with `git check-attr`, test/store/merge-attributes):
 * - a file is read line by line; `\r\n` loses its `\r`; a UTF-8 BOM opening the first line is
 *   skipped; a line is a C string, so it ends at a NUL byte;
 * - blanks are space, tab, `\r`, `\n` only (not NBSP or U+3000: those are pattern bytes);
 * - a line of 2048 bytes or more is ignored ("ignoring overly long attributes line");
 * - a pattern that opens with `"` and unquotes C-style is the unquoted bytes, and the
 *   attributes follow the closing quote; one that does not unquote is read as unquoted;
 * - a `[attr]name` macro (told by all the unquoted bytes) is not allowed in a nested file;
 * - the pattern is then a C string too (`parse_path_pattern` takes its `strlen`): an escaped
 *   NUL (`"*.txt\000/x"`) ends it, so git reads `*.txt`, no slash, any depth below the file
 *   (red team, round eighteen: the bytes after it were kept, the slash anchored the rewrite to
 *   the directory's direct children, and a nested `-merge` was lost below them);
 * - a `!negative` pattern is not allowed in a nested file.
 */

/** git ignores an attributes line this long or longer (attr.c `ATTR_MAX_LINE_LENGTH`). */
export const MAX_LINE_BYTES = 2048;

const BLANK = /[ \t\r\n]/;
const BLANKS = /[ \t\r\n]+/;
const BOM = '\xef\xbb\xbf';

/** A file's lines as git hands them to its line parser. */
export function attributeLines(file: string): string[] {
  const lines = file.split('\n');
  return lines.map((line, i) => {
    let text = i < lines.length - 1 && line.endsWith('\r') ? line.slice(0, -1) : line;
    if (i === 0 && text.startsWith(BOM)) text = text.slice(BOM.length);
    const nul = text.indexOf('\0');
    return nul < 0 ? text : text.slice(0, nul);
  });
}

/** A line that says something: its pattern (unquoted) and its attributes, one per item. */
export interface AttributeLine {
  pattern: string;
  attributes: string[];
}

/**
 * What a line of a nested file says, or undefined when git reads nothing from it there: a
 * blank line, a comment, a line too long, a macro, a negative pattern.
 */
export function parseNestedLine(line: string): AttributeLine | undefined {
  const start = line.search(/[^ \t\r\n]/);
  if (start < 0 || line[start] === '#' || line.length >= MAX_LINE_BYTES) return undefined;
  const text = line.slice(start);
  const quoted = text.startsWith('"') ? unquoteC(text) : undefined;
  let pattern: string;
  let states: string;
  if (quoted !== undefined) [pattern, states] = [quoted.value, text.slice(quoted.end)];
  else {
    const end = text.search(BLANK);
    [pattern, states] = end < 0 ? [text, ''] : [text.slice(0, end), text.slice(end)];
  }
  if (pattern.length > '[attr]'.length && pattern.startsWith('[attr]')) return undefined;
  const nul = pattern.indexOf('\0');
  if (nul >= 0) pattern = pattern.slice(0, nul);
  if (pattern.startsWith('!')) return undefined;
  return {
    pattern,
    attributes: states.split(BLANKS).filter((item) => item !== ''),
  };
}

/** The line that says `attributes` for `pattern`, the pattern quoted when git needs it. */
export function formatLine(pattern: string, attributes: readonly string[]): string {
  // eslint-disable-next-line no-control-regex
  const said = /[\x00-\x20"\x7f]/.test(pattern) ? quoteC(pattern) : pattern;
  return [said, ...attributes].join(' ');
}

const NAMED: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
};

/** git's `unquote_c_style`: the value and where the text goes on after the closing quote. */
function unquoteC(text: string): { value: string; end: number } | undefined {
  let value = '';
  let at = 1;
  for (;;) {
    const c = text[at++];
    if (c === undefined) return undefined;
    if (c === '"') return { value, end: at };
    if (c !== '\\') {
      value += c;
      continue;
    }
    const e = text[at++] ?? '';
    if (e in NAMED) value += NAMED[e];
    else if (/^[0-3][0-7][0-7]$/.test(text.slice(at - 1, at + 2))) {
      value += String.fromCharCode(parseInt(text.slice(at - 1, at + 2), 8));
      at += 2;
    } else return undefined;
  }
}

const ESCAPED: Record<string, string> = Object.fromEntries(
  Object.entries(NAMED).map(([letter, char]) => [char, `\\${letter}`]),
);

/** C-style quoting git's `unquote_c_style` reads back byte for byte. */
function quoteC(value: string): string {
  // eslint-disable-next-line no-control-regex
  const body = value.replace(/[\x00-\x1f"\\\x7f]/g, (c) => {
    return ESCAPED[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`;
  });
  return `"${body}"`;
}
