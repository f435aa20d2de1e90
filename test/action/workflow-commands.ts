/**
 * The GitHub runner's reading of workflow commands from a step's output, re-implemented from
 * actions/runner (`src/Runner.Common/ActionCommand.cs`, `src/Runner.Worker/ActionCommandManager.cs`)
 * so that tests can feed it every line ledger prints:
 *
 * - each output line is tried with `TryParseV2` — after `TrimStart()`, the line must start with
 *   `::`, the command info runs to the next `::`, the name to the first space, properties are
 *   `,`-separated `k=v` — and, when that fails, with the legacy `TryParse` — `##[` ANYWHERE in
 *   the line, the info up to the next `]`, `;`-separated properties;
 * - only registered command names count (compared ignoring case);
 * - `stop-commands` with data TOKEN stops processing and registers TOKEN as a command; until a
 *   line parses as the command TOKEN (in either syntax), every other command is ignored.
 *
 * .NET's `IndexOf`/`StartsWith` on strings compare culturally, and with ICU ignorable code
 * points (zero-width characters, the soft hyphen) are skipped: `#\u00ad#[` can match `##[`.
 * `lenient` models that by also trying each line with every default-ignorable code point taken
 * out.
 */

/** The commands the runner registers (its command extensions, and `stop-commands`). */
export const RUNNER_COMMANDS = [
  'add-mask',
  'add-matcher',
  'add-path',
  'debug',
  'echo',
  'endgroup',
  'error',
  'group',
  'notice',
  'remove-matcher',
  'save-state',
  'set-env',
  'set-output',
  'stop-commands',
  'warning',
] as const;

export interface ParsedCommand {
  command: string;
  properties: Record<string, string>;
  data: string;
  syntax: 'v2' | 'legacy';
  line: string;
}

/** `char.IsWhiteSpace`, which `string.TrimStart()` removes. */
const DOTNET_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/u;

const unescape = (text: string, pairs: readonly [string, string][]): string =>
  pairs.reduce((out, [from, to]) => out.split(from).join(to), text);

const DATA: [string, string][] = [
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%25', '%'],
];
const PROPERTY: [string, string][] = [
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%3A', ':'],
  ['%2C', ','],
  ['%25', '%'],
];
const LEGACY: [string, string][] = [
  ['%3B', ';'],
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%5D', ']'],
  ['%25', '%'],
];

function known(name: string, registered: ReadonlySet<string>): boolean {
  return registered.has(name.toLowerCase());
}

export function tryParseV2(line: string, registered: ReadonlySet<string>): ParsedCommand | null {
  const message = line.slice(DOTNET_SPACE.exec(line)![0].length);
  if (!message.startsWith('::')) return null;
  const end = message.indexOf('::', 2);
  if (end < 0) return null;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  if (!known(command, registered)) return null;
  const properties: Record<string, string> = {};
  if (space > 0)
    for (const pair of info
      .slice(space + 1)
      .trim()
      .split(',')
      .filter((p) => p !== '')) {
      const at = pair.indexOf('=');
      if (at > 0 && at < pair.length - 1)
        properties[pair.slice(0, at)] = unescape(pair.slice(at + 1), PROPERTY);
    }
  return {
    command,
    properties,
    data: unescape(message.slice(end + 2), DATA),
    syntax: 'v2',
    line,
  };
}

export function tryParseLegacy(
  line: string,
  registered: ReadonlySet<string>,
): ParsedCommand | null {
  const prefix = line.indexOf('##[');
  if (prefix < 0) return null;
  const rb = line.indexOf(']', prefix);
  if (rb < 0) return null;
  const info = line.slice(prefix + 3, rb);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  if (!known(command, registered)) return null;
  const properties: Record<string, string> = {};
  if (space > 0)
    for (const pair of info
      .slice(space + 1)
      .split(';')
      .filter((p) => p !== '')) {
      const at = pair.indexOf('=');
      if (at > 0 && at < pair.length - 1)
        properties[pair.slice(0, at)] = unescape(pair.slice(at + 1), LEGACY);
    }
  return {
    command,
    properties,
    data: unescape(line.slice(rb + 1), LEGACY),
    syntax: 'legacy',
    line,
  };
}

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * Feeds a step's output to the runner's command processing and returns the commands it runs
 * (stop-commands and the resume token included), in order.
 */
export function runnerCommands(
  output: string,
  options: { lenient?: boolean } = {},
): ParsedCommand[] {
  const registered = new Set<string>(RUNNER_COMMANDS);
  const processed: ParsedCommand[] = [];
  let stopToken: string | null = null;
  // The runner reads lines with StreamReader.ReadLine: CR, LF and CRLF all end a line.
  for (const line of output.split(/\r\n|\r|\n/u)) {
    const candidates = [line];
    if (options.lenient) candidates.push(line.replace(IGNORABLE, ''));
    let parsed: ParsedCommand | null = null;
    for (const candidate of candidates) {
      parsed = tryParseV2(candidate, registered) ?? tryParseLegacy(candidate, registered);
      if (parsed) break;
    }
    if (!parsed) continue;
    if (stopToken !== null) {
      if (parsed.command.toLowerCase() === stopToken.toLowerCase()) {
        registered.delete(stopToken.toLowerCase());
        stopToken = null;
        processed.push(parsed);
      }
      continue;
    }
    if (parsed.command.toLowerCase() === 'stop-commands') {
      stopToken = parsed.data;
      registered.add(stopToken.toLowerCase());
    }
    processed.push(parsed);
  }
  return processed;
}
