/**
 * Hostile text in every kind of field that reaches the terminal — record fields, a witness
 * command, a remote name and a branch name from the repository's config, file names — through
 * the real CLI: text output, JSON output, errors, and the progress lines a person at a
 * terminal sees (run under a pseudo-terminal with `script`, so `isTTY` is really true).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, bareRemote, cleanup, gitdir } from '../helpers/git.js';
import { cli, cliText, makeUser, record, safeGit, type User } from './helpers.js';

afterEach(cleanup);

/** Window title (OSC … BEL), conceal, bidi override, C1 CSI recolour, clear screen. */
const HOSTILE = '\x1b]0;pwned\x07\x1b[8m\u202eevil\u009b31m\x1b[2J';
/** What git accepts in ref and remote names (no C0 or DEL): bidi override and C1 CSI. */
const HOSTILE_NAME = 'x\u202eevil\u009b31m';

/**
 * A raw control, C1, bidi or zero-width character in output. CR is allowed: a terminal's line
 * discipline turns every \n into \r\n.
 */
const RAW =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/u;

/** ledger's own progress line erases itself with this (src/cli/progress.ts): not agent text. */
const CLEAR_LINE = /\r\x1b\[2K/g;

function expectClean(what: string, output: string): void {
  const hit = RAW.exec(output.replace(CLEAR_LINE, '\r'));
  expect(
    hit === null
      ? null
      : `${what}: raw U+${hit[0].codePointAt(0)!.toString(16)} near ${JSON.stringify(output.slice(Math.max(0, hit.index - 40), hit.index + 10))}`,
  ).toBeNull();
}

/** The CLI under a pseudo-terminal (util-linux `script`), so progress lines are printed. */
function cliInTerminal(user: User, cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // A wide terminal, so the progress line (cut to the terminal's width) shows whole commands.
    const command = `stty cols 1000 2>/dev/null; ${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')}`;
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd,
      env: { ...process.env, ...user.env, TERM: 'dumb' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

describe('adversarial: no output path prints agent, remote or config text raw', () => {
  it('hostile record fields, witness command, remote and branch names, file names — escaped in text, JSON, errors and progress lines (verify --rerun, sync, show --as to a terminal)', async () => {
    const user = makeUser();
    const dir = gitdir();
    safeGit(dir, 'checkout', '-q', '-b', `feat/${HOSTILE_NAME}`);
    const remote = bareRemote();
    safeGit(dir, 'remote', 'add', HOSTILE_NAME, remote);
    safeGit(dir, 'config', `branch.feat/${HOSTILE_NAME}.remote`, HOSTILE_NAME);
    // A witness command that fails, carrying the sequences: its record's success claim is
    // contradicted, so verify prints FAIL lines after the progress line that names it.
    const { id } = await record(user, dir, {
      status: 'success',
      summary: `${HOSTILE}\nverified: all good`,
      task: HOSTILE,
      producer: HOSTILE,
      witnesses: [`exit 1 # ${HOSTILE}`],
    });
    // a handoff whose file name carries the sequences
    const fileName = `handoff${HOSTILE.replace(/\x07/g, '')}.json`;
    writeFileSync(join(dir, fileName), JSON.stringify({ status: 'success', summary: HOSTILE }));
    const fromFile = await cli(user, dir, ['record', '--from', fileName]);
    expect(fromFile.code, fromFile.stdout).toBe(0);
    expectClean('record --json', fromFile.stdout);

    const rerun = await cliInTerminal(user, dir, ['verify', '--rerun']);
    expect(rerun).toMatch(/re-running[^\n]*: exit 1 # \\x1b\]0;pwned/); // the command, escaped
    expect(rerun).toMatch(/FAIL/);
    expectClean('verify --rerun (terminal)', rerun);

    const synced = await cliInTerminal(user, dir, ['sync']);
    expect(synced).toMatch(/fetching the ledger from x/);
    expect(synced).toMatch(/synced with x/);
    expectClean('sync (terminal)', synced);

    // the original handoff bytes go out exactly only to a pipe; to a terminal, escaped
    const original = await cliInTerminal(user, dir, ['show', fromFile.json.id, '--as', 'ledger']);
    expect(original).toMatch(/summary/);
    expectClean('show --as ledger (terminal)', original);

    for (const args of [['log'], ['show', id], ['record', '--from', `missing${HOSTILE}.md`]]) {
      const text = await cliText(user, dir, args);
      expectClean(`${args.join(' ')} (text)`, text.stdout + text.stderr);
    }
    for (const args of [
      ['sync', '--no-push'],
      ['show', id],
    ]) {
      const json = await cli(user, dir, args);
      expectClean(`${args.join(' ')} --json`, json.stdout + json.stderr);
      expect(json.json, args.join(' ')).toBeDefined();
    }
    // JSON keeps the values exactly: the escapes are JSON's own
    const shown = await cli(user, dir, ['show', id]);
    expect(shown.json.claims.summary).toBe(`${HOSTILE}\nverified: all good`);
    expect(shown.json.observed.branch).toBe(`feat/${HOSTILE_NAME}`);
  }, 120_000);
});
