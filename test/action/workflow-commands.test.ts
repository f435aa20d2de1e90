/**
 * CI output cannot issue commands (issue 16, item 10): under `verify --annotations github` the
 * runner, reading verify's output line by line as it does (test/action/workflow-commands.ts,
 * both syntaxes), runs ledger's own annotations and nothing an agent wrote — not `::add-mask::`
 * after leading whitespace, not `##[set-output …]` in the middle of a line.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  forGithubLog,
  githubFence,
  neutralizeWorkflowCommands,
} from '../../src/cli/annotations.js';
import { escapeForTerminal } from '../../src/paths/index.js';
import { cliText, makeUser, record } from '../adversarial/helpers.js';
import { cleanup, gitdir, writeFiles } from '../helpers/git.js';
import { RUNNER_COMMANDS, runnerCommands } from './workflow-commands.js';

afterEach(cleanup);

/** Lines an agent would like the runner to act on, in both syntaxes and the runner's spacing. */
const HOSTILE = [
  '::add-mask::hunter2',
  '   ::set-output name=verdict::ok',
  '\t::stop-commands::anything',
  '\u3000::error title=forged::all checks passed',
  '\u00a0\u2003::warning::x',
  'text before ##[add-mask]hunter2',
  '##[group]collapsed, so nobody reads it',
  'x ##[set-output name=verdict;]ok',
  '##[endgroup]',
  'a ##[stop-commands]token',
  '#\u00ad#[add-mask]soft hyphen between',
  '##\u200b[debug]zero-width between',
  '::ledger-0123::',
];

describe('the runner parser this test uses', () => {
  it('runs commands in both syntaxes, and stops and resumes on a token as the runner does', () => {
    const output = [
      '::add-mask::a',
      'text ##[set-output name=x;]y',
      '::stop-commands::T1',
      '::error::ignored',
      '##[add-mask]ignored',
      '::t1::',
      '  ::notice::runs again',
    ].join('\n');
    expect(runnerCommands(output).map((c) => [c.command, c.syntax, c.data])).toEqual([
      ['add-mask', 'v2', 'a'],
      ['set-output', 'legacy', 'y'],
      ['stop-commands', 'v2', 'T1'],
      ['t1', 'v2', ''],
      ['notice', 'v2', 'runs again'],
    ]);
    expect(runnerCommands('#\u00ad#[add-mask]x', { lenient: true })).toHaveLength(1);
  });
});

describe('verify --annotations github: human text', () => {
  it('every hostile line, neutralized, starts no command in either syntax, even outside the fence', () => {
    for (const line of HOSTILE) {
      const printed = escapeForTerminal(neutralizeWorkflowCommands(line));
      expect(runnerCommands(printed, { lenient: true }), printed).toEqual([]);
      expect(printed).not.toContain('##[');
    }
  });

  it('no string at all, neutralized and escaped as printed, is a command (property)', () => {
    const piece = fc.constantFrom(
      '::',
      '##[',
      ']',
      ' ',
      '\t',
      '\u3000',
      '\u00ad',
      '\u200b',
      '#',
      ':',
      ';',
      '=',
      ',',
      '\n',
      '\r',
      'x',
      ...RUNNER_COMMANDS,
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const printed = escapeForTerminal(neutralizeWorkflowCommands(pieces.join('')));
        expect(runnerCommands(printed, { lenient: true })).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it('fences human text with a fresh random token, annotations outside it', () => {
    const a = githubFence();
    const b = githubFence();
    expect(a.open).toMatch(/^::stop-commands::ledger-[0-9a-f]{32}$/);
    expect(a.open).not.toBe(b.open);
    const lines = forGithubLog(['::error title=t::m'], HOSTILE);
    const commands = runnerCommands(lines.map(escapeForTerminal).join('\n'), { lenient: true });
    expect(commands.map((c) => c.command)).toEqual([
      'error',
      'stop-commands',
      lines.at(-1)!.slice(2, -2),
    ]);
  });
});

describe('verify --annotations github on a hostile ledger', () => {
  it('the runner runs only ledger’s own annotations from every line verify prints', async () => {
    const user = makeUser();
    const dir = gitdir();
    writeFiles(dir, { 'src/app.ts': 'one\n' });
    // A witness that passes where it was recorded (a .git is there) and, re-run in a clean
    // checkout, fails printing commands: its output reaches verify's text as the failure's tail.
    const witness = `if [ -e .git ]; then exit 0; fi; printf '%s\\n' ${HOSTILE.slice(0, 11)
      .map((l) => `'${l.replace(/'/g, `'\\''`)}'`)
      .join(' ')}; exit 1`;
    const handoff = {
      status: 'success',
      summary: '::add-mask::summary ##[group]x',
      task: 'T ##[set-output name=t;]x',
      artifacts: [
        { path: 'src/##[add-mask]hunter2.ts', action: 'deleted' },
        { path: '##[group]g/x ##[endgroup]', action: 'modified' },
      ],
      references: [{ path: 'src/app.ts ##[set-output name=r;]v', line: 3 }],
    };
    writeFiles(dir, { 'src/##[add-mask]hunter2.ts': 'still here\n' });
    await record(user, dir, {
      from: { bytes: new TextEncoder().encode(JSON.stringify(handoff)), fileName: 'handoff.json' },
      witnesses: [witness],
    });
    const run = await cliText(user, dir, [
      'verify',
      '--annotations',
      'github',
      '--strict',
      '--rerun',
    ]);
    expect(run.code, run.stderr).toBe(1);
    // The hostile lines are in the output, as text.
    expect(run.stdout).toContain('##\\[add-mask]hunter2');
    expect(run.stdout).toContain('last lines of stdout');
    expect(run.stdout).toContain('| text before ##\\[add-mask]hunter2');
    const commands = runnerCommands(run.stdout, { lenient: true });
    const annotations = run.stdout.split('\n').filter((l) => /^::(error|warning) /.test(l));
    expect(annotations.length).toBeGreaterThan(0);
    const fence = commands.filter((c) => c.command === 'stop-commands');
    expect(fence).toHaveLength(1);
    expect(commands.map((c) => c.line)).toEqual([
      ...annotations,
      fence[0]!.line,
      `::${fence[0]!.data}::`,
    ]);
    // And without the fence, the neutralized text alone still runs nothing.
    const unfenced = run.stdout
      .split('\n')
      .filter((l) => l !== fence[0]!.line)
      .join('\n');
    expect(runnerCommands(unfenced, { lenient: true }).map((c) => c.line)).toEqual(annotations);
  });
});
