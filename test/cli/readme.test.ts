/**
 * The README's command list is the help output's: same commands, same one-line summaries.
 * A command added, removed or re-described without the README following fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitdir, PROJECT_ROOT, runCli } from '../helpers/git.js';

/** A section of `ledger help` (COMMANDS, TOPICS) as name → summary (wrapped lines joined). */
function helpSection(help: string, title: string): Map<string, string> {
  const section = help.split(new RegExp(`^${title}$`, 'm'))[1] ?? '';
  const commands = new Map<string, string>();
  let current: string | undefined;
  for (const line of section.split('\n')) {
    if (/^\S/.test(line)) break; // the next section
    const entry = /^ {2}(\S+(?: [a-z][\w-]*)*?) {2,}(.*)$/.exec(line);
    if (entry) {
      current = entry[1]!;
      commands.set(current, entry[2]!.trim());
    } else if (current !== undefined && line.trim() !== '') {
      commands.set(current, `${commands.get(current)} ${line.trim()}`);
    }
  }
  return commands;
}

/** The README's "Commands" table as name → summary. */
function readmeCommands(readme: string): Map<string, string> {
  const section = readme.split(/^## Commands$/m)[1]?.split(/^## /m)[0] ?? '';
  const commands = new Map<string, string>();
  for (const m of section.matchAll(/^\| `ledger ([^`]+)` \| (.*) \|$/gm))
    commands.set(m[1]!, m[2]!.trim());
  return commands;
}

describe('README', () => {
  it('lists exactly the commands ledger help lists, with the same summaries', async () => {
    const repo = gitdir();
    const help = await runCli(['help'], repo);
    expect(help.code).toBe(0);
    // Top-level commands, and the commands under each topic (`ledger help hook`).
    const fromHelp = helpSection(help.stdout, 'COMMANDS');
    for (const topic of helpSection(help.stdout, 'TOPICS').keys()) {
      const topicHelp = await runCli(['help', topic], repo);
      for (const [name, summary] of helpSection(topicHelp.stdout, 'COMMANDS'))
        fromHelp.set(name, summary);
    }
    expect(fromHelp.size).toBeGreaterThan(10);
    const fromReadme = readmeCommands(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'));
    expect(Object.fromEntries(fromReadme)).toEqual(Object.fromEntries(fromHelp));
  });

  it('documents npx handoff-ledger, never npx ledger (an unrelated package)', () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npx handoff-ledger');
    expect(readme).not.toMatch(/npx ledger [a-z-]/); // a usage line would run the wrong package
  });
});
