/**
 * No line any ledger command prints can issue a workflow command (issue 16, item 10, follow-up):
 * the GitHub runner reads BOTH stdout and stderr of every step, and a CI job may pipe any
 * command, with or without `--annotations github`. On a ledger whose record is hostile in every
 * field an agent writes, each command's stdout and stderr, fed to the runner's parser
 * (test/action/workflow-commands.ts, both syntaxes), run nothing.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliText, makeUser, type User } from '../adversarial/helpers.js';
import { BIN, cleanup, cloneOf, git, remoteWithClones, writeFiles } from '../helpers/git.js';
import { neutralizeWorkflowCommands } from '../../src/paths/index.js';
import { runnerCommands } from './workflow-commands.js';

/** Agent text that would be a workflow command, in both syntaxes and the runner's spacing. */
const HOSTILE = [
  '##[add-mask]hunter2',
  '::set-output name=v::ok',
  ' ::error::forged',
  '\u3000::warning::forged',
];
const LINES = HOSTILE.join('\n');
/** One-line fields: the hostile text on one line (the runner trims leading space too). */
const ONE = (prefix: string) => `${HOSTILE[2]!.trimStart()} ${prefix} ${HOSTILE[0]}`;

let user: User;
let dir: string;
let remote: string;
let id: string;
let recorded: { stdout: string; stderr: string; code: number };

/** Asserts that neither stream of a run carries a command the runner would act on. */
function expectNoCommands(run: { stdout: string; stderr: string }): void {
  expect(runnerCommands(run.stdout, { lenient: true }), run.stdout).toEqual([]);
  expect(runnerCommands(run.stderr, { lenient: true }), run.stderr).toEqual([]);
}

beforeAll(async () => {
  user = makeUser();
  const seeded = remoteWithClones(1);
  remote = seeded.remote;
  dir = seeded.clones[0]!;
  writeFiles(dir, { 'src/##[add-mask]hunter2.ts': 'still here\n' });
  // Passes where it is recorded (a .git is there) and fails re-run in a clean checkout, printing
  // the hostile lines both times: its output reaches show (kept) and verify (the failure's tail).
  const witness = `printf '%s\\n' ${HOSTILE.map((l) => `'${l}'`).join(' ')}; [ -e .git ]`;
  const handoff = {
    status: 'success',
    summary: `${LINES}\nsummary ##[group]x`,
    task: ONE('task'),
    decisions: [{ text: LINES, reason: ONE('reason') }],
    artifacts: [
      { path: 'src/##[add-mask]hunter2.ts', action: 'deleted' },
      { path: '::set-output name=a::b', action: 'modified' },
    ],
  };
  writeFileSync(join(dir, 'handoff.json'), JSON.stringify(handoff));
  recorded = await cliText(user, dir, [
    'record',
    '--from',
    'handoff.json',
    '--witness',
    witness,
    // Fails where it is recorded: record's stderr names it in the lowered status's reasons.
    '--witness',
    `: '${HOSTILE[0]} ${HOSTILE[1]}'; exit 3`,
    '--keep-output',
  ]);
  id = recorded.stdout.trim();
  git(dir, 'push', '-q', 'origin', 'refs/ledger/*:refs/ledger/*');
}, 60_000);

afterAll(cleanup);

describe('the neutralizing every printed line goes through', () => {
  it('takes `\\r` and `\\r\\n` as line ends, as the runner does (kept bytes are not escaped)', () => {
    for (const text of ['a\r::add-mask::x', 'a\r\n ::error::x', 'a\r\u3000::warning::x\rb']) {
      const printed = neutralizeWorkflowCommands(text);
      expect(runnerCommands(printed, { lenient: true }), printed).toEqual([]);
      expect(printed.replace(/\\::/g, '::')).toBe(text);
    }
  });
});

describe('every command on a hostile record: the runner finds no workflow command', () => {
  it('record: the id on stdout, the lowered status and its reasons on stderr', () => {
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(id).toMatch(/^sha256:/);
    expect(recorded.stderr).toContain('hunter2');
    expectNoCommands(recorded);
  });

  // `shows` says whether the command prints the agent's text at all (stats only counts).
  it.each([
    ['log', ['log'], true],
    ['show', ['show', '<id>'], true],
    ['show --json', ['show', '<id>', '--json'], true],
    ['stats', ['stats'], false],
    ['report --markdown -', ['report', '--markdown', '-'], true],
    ['verify (text, no annotations)', ['verify', '--rerun'], true],
    ['verify --json', ['verify', '--rerun', '--json'], true],
    ['an error quoting agent text', ['show', '--latest', `x${HOSTILE[0]}`], true],
    ['an error quoting agent text, --json', ['show', '--latest', `x${HOSTILE[0]}`, '--json'], true],
  ] as const)('%s', async (_name, args, shows) => {
    const run = await cliText(
      user,
      dir,
      args.map((a) => (a === '<id>' ? id : a)),
    );
    if (shows) expect(`${run.stdout}${run.stderr}`).toContain('hunter2');
    expectNoCommands(run);
  });

  it('show --as: the kept bytes to a pipe, neutralized in a GitHub Actions step unless a file', async () => {
    const original = await cliText(user, dir, ['show', id, '--as', 'ledger'], {
      GITHUB_ACTIONS: '',
    });
    expect(original.stdout).toContain(`"summary":"${HOSTILE[0]}`);
    const inCi = await cliText(user, dir, ['show', id, '--as', 'ledger'], {
      GITHUB_ACTIONS: 'true',
    });
    expect(inCi.code, inCi.stderr).toBe(0);
    expect(inCi.stdout).toContain('##\\[add-mask]hunter2');
    expect(inCi.stderr).toContain('redirect to a file for the exact bytes');
    expectNoCommands(inCi);
    const file = join(dir, 'kept.json');
    const redirected = spawnSync(
      'sh',
      ['-c', 'node "$0" show "$1" --as ledger > "$2"', BIN, id, file],
      {
        cwd: dir,
        env: { ...process.env, ...user.env, GITHUB_ACTIONS: 'true' },
        encoding: 'utf8',
      },
    );
    expect(redirected.status, redirected.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original.stdout);
  });

  it('export --out -: the statement stays JSON of the same value, and runs nothing', async () => {
    const run = await cliText(user, dir, [
      'export',
      id,
      '--in-toto-statement',
      '--out',
      '-',
      '--allow-unverified',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expectNoCommands(run);
    expect(JSON.stringify(JSON.parse(run.stdout))).toContain('hunter2');
  });

  it('sync: received records, and an error naming a remote', async () => {
    const clone = cloneOf(remote);
    const synced = await cliText(user, clone, ['sync']);
    expect(synced.code, synced.stderr).toBe(0);
    expectNoCommands(synced);
    const log = await cliText(user, clone, ['log']);
    expect(log.stdout).toContain('hunter2');
    expectNoCommands(log);
    const failed = await cliText(user, clone, ['sync', 'x##[add-mask]hunter2']);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('hunter2');
    expectNoCommands(failed);
  });
});
