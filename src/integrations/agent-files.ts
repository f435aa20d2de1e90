/**
 * The files `ledger init` writes for agents besides their hook settings: Codex's MCP server
 * entry in `.codex/config.toml`, and a short marked section in `AGENTS.md` telling any agent
 * how to hand over. Both are merged as text, keeping everything else byte for byte, and are
 * idempotent: a second run changes nothing.
 *
 * TOML is not parsed (no TOML library is a dependency): ledger owns exactly one table,
 * `[mcp_servers.ledger]`, replaced up to the next table header. A file that defines that server
 * any other way (an inline table, dotted keys) is refused with nothing written, since appending
 * the table would make the file invalid TOML and Codex would refuse all of it.
 */
import { lstat, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LedgerError } from '../model/errors.js';
import { writeSettingsFile, type McpEntry } from './claude-code/settings.js';
import { hooksDisabledError } from './settings-checks.js';

export interface FileChange {
  path: string;
  change: 'added' | 'updated' | 'unchanged';
  write(): Promise<void>;
}

const TABLE =
  /^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("ledger"|'ledger'|ledger)[ \t]*\][ \t]*(#.*)?$/;
const ANY_TABLE = /^[ \t]*\[/;
/** `mcp_servers.ledger…` as a dotted key, or `ledger = …` inside `[mcp_servers]`. */
const OTHER_DEFINITION = /^[ \t]*mcp_servers[ \t]*\.[ \t]*("ledger"|'ledger'|ledger)[ \t]*[.=]/;

function tomlString(text: string): string {
  return JSON.stringify(text); // a TOML basic string is a JSON string for these characters
}

function codexTable(mcp: McpEntry): string[] {
  return [
    '[mcp_servers.ledger]',
    `command = ${tomlString(mcp.command)}`,
    `args = [${mcp.args.map(tomlString).join(', ')}]`,
  ];
}

/** `[mcp_servers.ledger]` in `.codex/config.toml`, added or brought up to date. */
export async function prepareCodexMcp(root: string, mcp: McpEntry): Promise<FileChange> {
  const dir = join(root, '.codex');
  const path = join(dir, 'config.toml');
  await refuseLinks(dir, path, '--codex');
  const original = await readText(path);
  // A Windows checkout (core.autocrlf) has CRLF: lines are split on either, and the file is
  // written back with its own line ending. Split on \n alone, no header matched (each ended in
  // \r) and a second [mcp_servers.ledger] was appended: invalid TOML (red team, round ten).
  const eol = original?.match(/\r?\n/)?.[0] ?? '\n';
  const lines = original === undefined ? [] : original.split(/\r?\n/);
  let section: string | undefined;
  for (const [i, line] of lines.entries()) {
    if (ANY_TABLE.test(line)) section = line.trim();
    const inServers = section !== undefined && /^\[[ \t]*mcp_servers[ \t]*\]/.test(section);
    const hooksOff = hooksSwitchedOff(line, section);
    if (hooksOff !== undefined) throw hooksDisabledError(path, hooksOff, '--codex');
    if (
      OTHER_DEFINITION.test(line) ||
      (inServers && /^[ \t]*("ledger"|'ledger'|ledger)[ \t]*[.=]/.test(line)) ||
      /^[ \t]*mcp_servers[ \t]*=/.test(line)
    ) {
      throw new LedgerError(
        'INVALID_INPUT',
        `${path} defines MCP servers in a form ledger does not edit`,
        {
          problems: [
            {
              path: `.codex/config.toml:${i + 1}`,
              message: 'not a [mcp_servers.ledger] table',
              got: line.trim(),
            },
          ],
          hint: 'Nothing was written. Add the server by hand as [mcp_servers.ledger] with command and args, or remove that line and run ledger init --codex again.',
        },
      );
    }
  }
  const tables = lines.flatMap((l, i) => (TABLE.test(l) ? [i] : []));
  if (tables.length > 1)
    throw new LedgerError('INVALID_INPUT', `${path} declares [mcp_servers.ledger] twice`, {
      problems: tables.map((i) => ({
        path: `.codex/config.toml:${i + 1}`,
        message:
          'one of several [mcp_servers.ledger] tables (invalid TOML: Codex refuses the file)',
        got: lines[i]!.trim(),
      })),
      hint: 'Nothing was written. Keep one [mcp_servers.ledger] table, then run ledger init --codex again.',
    });
  const table = codexTable(mcp);
  const start = tables[0] ?? -1;
  let next: string[];
  let change: FileChange['change'];
  if (start < 0) {
    const body = original === undefined || original.trim() === '' ? [] : [...trimEnd(lines), ''];
    next = [...body, ...table, ''];
    change = 'added';
  } else {
    let end = start + 1;
    while (end < lines.length && !ANY_TABLE.test(lines[end]!)) end++;
    // Keys of ours are replaced; anything else in the table (env, startup_timeout_sec) stays.
    const kept = lines.slice(start + 1, end).filter((l) => !/^[ \t]*(command|args)[ \t]*=/.test(l));
    next = [...lines.slice(0, start), ...table, ...kept, ...lines.slice(end)];
    change = next.join(eol) === original ? 'unchanged' : 'updated';
  }
  const text = next.join(eol);
  return {
    path,
    change,
    async write() {
      if (change === 'unchanged') return;
      await mkdir(dir, { recursive: true });
      await refuseLinks(dir, path, '--codex');
      await writeSettingsFile(path, text);
    },
  };
}

/**
 * `mcpServers.ledger` in `.cursor/mcp.json`, added or brought up to date; other servers and
 * other keys of a hand-edited ledger entry (env) stay. A file that is not a JSON object with an
 * object `mcpServers` is refused with nothing written.
 */
export async function prepareCursorMcp(root: string, mcp: McpEntry): Promise<FileChange> {
  const dir = join(root, '.cursor');
  const path = join(dir, 'mcp.json');
  await refuseLinks(dir, path, '--cursor');
  const original = await readText(path);
  const refuse = (message: string) =>
    new LedgerError('INVALID_INPUT', `${path} cannot be merged`, {
      problems: [{ path: '.cursor/mcp.json', message, expected: 'a JSON object with mcpServers' }],
      hint: 'Nothing was written. Fix the file (Cursor reads it as plain JSON) or move it aside, then run ledger init --cursor again.',
    });
  let config: Record<string, unknown> = {};
  if (original !== undefined && original.trim() !== '') {
    let value: unknown;
    try {
      value = JSON.parse(original);
    } catch (error) {
      throw refuse((error as Error).message);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw refuse('not a JSON object');
    config = value as Record<string, unknown>;
  }
  const servers = config['mcpServers'] ?? {};
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers))
    throw refuse('mcpServers is not an object');
  const existing = (servers as Record<string, unknown>)['ledger'];
  const before = JSON.stringify(existing);
  const entry = {
    ...(existing !== null && typeof existing === 'object' && !Array.isArray(existing)
      ? existing
      : {}),
    ...mcp,
  };
  config['mcpServers'] = { ...servers, ledger: entry };
  const change: FileChange['change'] =
    before === undefined ? 'added' : before === JSON.stringify(entry) ? 'unchanged' : 'updated';
  const text = `${JSON.stringify(config, null, 2)}\n`;
  return {
    path,
    change,
    async write() {
      if (change === 'unchanged') return;
      await mkdir(dir, { recursive: true });
      await refuseLinks(dir, path, '--cursor');
      await writeSettingsFile(path, text);
    },
  };
}

const BEGIN =
  '<!-- ledger:handoff (written by ledger init --agents-md; edits inside are replaced) -->';
const END = '<!-- /ledger:handoff -->';

/** The section: how to hand over, with one example, for any agent that reads AGENTS.md. */
export const AGENTS_MD_SECTION = `${BEGIN}
## Handing over

When you finish a task, end your final message with a handoff in a fenced \`json\` block.
This repository records it with \`ledger\` (a hook or the \`record\` MCP tool), checks what it
can — the files you name, the commands you say you ran — and may ask you to fix a claim that
the evidence does not support. Claim only what you did; \`status\` is one of \`success\`,
\`partial\`, \`failed\`, \`blocked\`.

\`\`\`json
{
  "status": "success",
  "task": "T-12",
  "summary": "Add the handoff parser",
  "decisions": [{ "text": "zod for validation" }],
  "artifacts": [{ "path": "src/parser.ts", "action": "created" }]
}
\`\`\`

Do not put a handoff-shaped block in a message that is not your final one.
${END}
`;

/**
 * Where ledger's section is: [-1, -1] when neither marker is there, else the offsets of its one
 * begin marker and the one end marker after it. Anything else (a begin without its end, an end
 * without a begin, two of either) is refused naming the line: replacing from an orphaned begin
 * marker to a later end marker deleted the user's own sections in between (red team, round ten).
 */
function markedSection(text: string, path: string): [number, number] {
  const all = (marker: string) => {
    const found: number[] = [];
    for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + 1)) found.push(i);
    return found;
  };
  const begins = all(BEGIN);
  const ends = all(END);
  if (begins.length === 0 && ends.length === 0) return [-1, -1];
  if (begins.length === 1 && ends.length === 1 && begins[0]! < ends[0]!)
    return [begins[0]!, ends[0]!];
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
  const odd =
    begins.length !== 1
      ? {
          at: begins[1] ?? ends[0]!,
          what:
            begins.length === 0 ? 'an end marker without a begin marker' : 'a second begin marker',
        }
      : ends.length === 0
        ? { at: begins[0]!, what: 'a begin marker without its end marker' }
        : {
            at: ends.find((e) => e < begins[0]!) ?? ends[1]!,
            what: ends.some((e) => e < begins[0]!)
              ? 'an end marker before the begin marker'
              : 'a second end marker',
          };
  throw new LedgerError('INVALID_INPUT', `${path} has ${odd.what} of ledger's section`, {
    problems: [{ path: `AGENTS.md:${lineOf(odd.at)}`, message: odd.what }],
    hint: `Nothing was written. ledger replaces only what lies between one ${BEGIN} line and one ${END} line after it: fix the markers by hand (or remove them with the old section), then run ledger init --agents-md again.`,
  });
}

/** The marked section in `AGENTS.md`, added or replaced. */
export async function prepareAgentsMd(root: string): Promise<FileChange> {
  const path = join(root, 'AGENTS.md');
  await refuseLinks(root, path, '--agents-md');
  const original = await readText(path);
  let text: string;
  if (original === undefined || original.trim() === '') text = AGENTS_MD_SECTION;
  else {
    const [start, end] = markedSection(original, path);
    if (start >= 0) {
      const after = original.slice(end + END.length).replace(/^\n/, '');
      text = `${original.slice(0, start)}${AGENTS_MD_SECTION}${after}`;
    } else {
      text = `${original.replace(/\n*$/, '\n')}\n${AGENTS_MD_SECTION}`;
    }
  }
  const change: FileChange['change'] =
    original === undefined || !original.includes(BEGIN)
      ? 'added'
      : text === original
        ? 'unchanged'
        : 'updated';
  return {
    path,
    change,
    async write() {
      if (change === 'unchanged') return;
      await refuseLinks(root, path, '--agents-md');
      await writeSettingsFile(path, text);
    },
  };
}

/**
 * Codex's hooks switched off (`[features] hooks = false`, or the deprecated `codex_hooks`), as
 * a table key, a dotted key or an inline table: the key, else undefined.
 */
export function hooksSwitchedOff(line: string, section: string | undefined): string | undefined {
  const off = /^[ \t]*(hooks|codex_hooks)[ \t]*=[ \t]*false\b/.exec(line);
  if (off && section !== undefined && /^\[[ \t]*features[ \t]*\]/.test(section))
    return `[features] ${off[1]} = false`;
  if (section !== undefined) return undefined;
  const dotted = /^[ \t]*features[ \t]*\.[ \t]*(hooks|codex_hooks)[ \t]*=[ \t]*false\b/.exec(line);
  if (dotted) return `features.${dotted[1]} = false`;
  const inline =
    /^[ \t]*features[ \t]*=[ \t]*\{[^}]*\b(hooks|codex_hooks)[ \t]*=[ \t]*false\b/.exec(line);
  return inline ? `features = { ${inline[1]} = false }` : undefined;
}

function trimEnd(lines: string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1]!.trim() === '') out.pop();
  return out;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function refuseLinks(dir: string, path: string, flag: string): Promise<void> {
  // The agent can write in the work tree: a planted link would make init (run by the user)
  // write into a file anywhere. Only plain files and folders.
  for (const [p, kind] of [
    [dir, 'directory'],
    [path, 'file'],
  ] as const) {
    let stat;
    try {
      stat = await lstat(p);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if (kind === 'directory' ? !stat.isDirectory() : !stat.isFile()) {
      throw new LedgerError('UNSAFE_PATH', `${p} is not a plain ${kind}`, {
        hint: `ledger writes only into a real ${kind}, never through a link; remove it and run ledger init ${flag} again.`,
      });
    }
  }
}
