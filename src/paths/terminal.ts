/**
 * Text that reaches a terminal: handoff summaries, claims, file names — all agent-written. An
 * ESC or CSI sequence could move the cursor, rewrite a `verified` line or recolour output; a
 * bidi override could make `contradicted` read as something else. Such characters are shown
 * as visible escapes (`\x1b`, `\u202e`) instead.
 *
 * Backslashes are left alone, so text that already contains `\x1b` literally looks the same
 * as an escaped ESC: the output is safe to show, not a reversible encoding.
 *
 * This is the one place that decides what may reach a terminal. The command base
 * (`src/cli/base.ts`) sends everything it prints through it — text, progress, errors, JSON —
 * and the linter forbids writing to stdout or stderr anywhere else, so a new output path
 * cannot forget to escape.
 *
 * A terminal is not the only reader: a CI runner parses every line a step writes to stdout or
 * stderr for workflow commands (GitHub's `::add-mask::…`, `##[set-output …]`), whatever flags
 * the command was given. So what is printed (`printableText`, `printableLine`, `toTerminalJson`)
 * is also made to start none (`neutralizeWorkflowCommands`).
 */

/**
 * C0 and C1 controls (ESC and CSI among them), DEL, line and paragraph separators, lone
 * surrogates, and every format character (`Cf`: bidi controls, zero-width characters, the
 * BOM, tag characters U+E0000–E007F) and default-ignorable code point (Hangul fillers,
 * variation selectors, U+034F, U+115F…). The last two are Unicode's own properties rather
 * than a hand-made list: a renderer draws nothing for them, so text carrying them reads as
 * something it is not (`T-1` and `T-1` + U+E0041 look alike), and a list would miss one.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|\p{Cf}|\p{Default_Ignorable_Code_Point}|\p{Cs}/gu;
const UNSAFE_LINE = /[\n\t]/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  // A lone surrogate has no code point of its own: codePointAt gives the surrogate.
  const cp = char.codePointAt(0)!;
  if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\u{${cp.toString(16)}}`;
}

/**
 * Escapes everything that could steer a terminal or hide text, keeping newlines and tabs:
 * for multi-line fields (a summary, a finding's body).
 */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** `escapeForTerminal`, and newlines and tabs escaped too: for one-line fields (a status, a path). */
export function sanitizeLine(text: string): string {
  return escapeForTerminal(text).replace(UNSAFE_LINE, escapeChar);
}

/**
 * A character other than a newline or printable ASCII. Searched for rather than matching the
 * whole text against `^[…]*$`, which kept a backtracking position per character: 10 MB for a
 * 5 MB verify report (heap sampling, issue 21).
 */
const NOT_PLAIN_JSON = /[^\n\x20-\x7e]/;

/**
 * JSON for a terminal or a pipe: `JSON.stringify`, with every character `escapeForTerminal`
 * would escape written as a `\uXXXX` escape instead. JSON.stringify leaves DEL, C1 controls
 * (CSI U+009B among them), bidi overrides and zero-width characters raw; as escapes the output
 * is the same JSON value, byte-for-byte safe to print.
 */
export function toTerminalJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2) ?? 'null';
  // JSON.stringify escapes every control character inside strings and writes only newlines and
  // spaces between them, so printable ASCII and newlines are all UNSAFE can never match. Testing
  // that first skips the Unicode-property scan of a 5 MB verify report (about 0.1 s, measured).
  return neutralizeJsonText(!NOT_PLAIN_JSON.test(json) ? json : json.replace(UNSAFE, jsonEscape));
}

/**
 * JSON text (a document ledger prints, such as an in-toto link) with `[` after `##` written
 * `\u005b`: the same JSON value, and no legacy workflow command. A JSON line cannot start with
 * `::` (strings are quoted, newlines escaped), so that is the only syntax to defuse.
 */
export function neutralizeJsonText(json: string): string {
  return json.replace(/##\[/g, '##\\u005b');
}

/** What the runner's `TrimStart` removes before looking for `::` (.NET `char.IsWhiteSpace`). */
const LEADING_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/u;

/**
 * Text in which no line starts a workflow command in either syntax the GitHub runner parses
 * (actions/runner, `ActionCommand.cs`): `##[cmd]` anywhere in a line (`TryParse`) becomes
 * `##\[`, and a line that would begin with `::` after leading whitespace (`TryParseV2`) gets a
 * `\` before it. Visible and readable as what it was; never a command. Run it after the
 * terminal escaping, so that an invisible character between `##` and `[` is already a visible
 * escape. A line starts where the text does (the command base writes whole lines) or after a
 * `\n`, `\r` or `\r\n`, as the runner's `ReadLine` splits them.
 */
export function neutralizeWorkflowCommands(text: string): string {
  const legacy = text.replace(/##\[/g, '##\\[');
  if (!legacy.includes('::')) return legacy;
  // The line ends are kept in the split (and no line end is whitespace followed by `::`).
  return legacy
    .split(/(\r\n|\r|\n)/u)
    .map((line) => {
      const lead = LEADING_SPACE.exec(line)![0].length;
      return line.startsWith('::', lead) ? `${line.slice(0, lead)}\\${line.slice(lead)}` : line;
    })
    .join('');
}

/** Multi-line text as printed: escaped for a terminal, and no line a CI workflow command. */
export function printableText(text: string): string {
  return neutralizeWorkflowCommands(escapeForTerminal(text));
}

/** One line as printed: `sanitizeLine`, and not a CI workflow command. */
export function printableLine(text: string): string {
  return neutralizeWorkflowCommands(sanitizeLine(text));
}

/** A character as JSON `\\uXXXX` escapes: a surrogate pair above U+FFFF, as JSON requires. */
function jsonEscape(char: string): string {
  let out = '';
  for (let i = 0; i < char.length; i++)
    out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}
