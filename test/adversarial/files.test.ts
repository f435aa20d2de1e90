/**
 * Files the agent prepared: a handoff that is a symlink to a secret, a FIFO, a link to
 * /dev/zero, an evidence log that is a FIFO, a file that is no handoff at all, and FIFOs swapped
 * in for artifacts while `verify --worktree` reads them. Every case runs the real CLI as a child
 * process with a deadline: a read that blocks shows up as a killed process, not a stuck suite.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup } from '../helpers/git.js';
import { isLedgerError, type LedgerError } from '../../src/model/errors.js';
import { FORMATS } from '../../src/model/record.js';
import { makeUser, record, repoWithRecord, safeRefs, type User } from './helpers.js';
import { mkfifo } from '../helpers/fifo.js';

afterEach(cleanup);

interface Ran {
  /** null when the deadline killed it. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI with `--json`, killed (code null) if it has not ended by the deadline. */
function cliWithin(
  user: User,
  cwd: string,
  args: readonly string[],
  options: { stdin?: string; deadlineMs?: number } = {},
): Promise<Ran & { json: any }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, '--json'], {
      cwd,
      env: { ...process.env, ...user.env },
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, options.deadlineMs ?? 30_000);
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: killed ? null : code, stdout, stderr, json });
    });
  });
}

const SECRET = 'PRIVATE-KEY-MATERIAL-7f3a9c';

function secretFile(user: User): string {
  const ssh = join(user.home, '.ssh');
  mkdirSync(ssh, { recursive: true });
  const path = join(ssh, 'id_ed25519');
  writeFileSync(
    path,
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
  return path;
}

function objectsHold(dir: string, text: string): boolean {
  const all = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
    cwd: dir,
    maxBuffer: 256 * 1024 * 1024,
  });
  // loose objects are deflated; cat-file --batch prints them inflated
  return all.includes(Buffer.from(text));
}

describe('adversarial: files handed to ledger are regular files within reach', () => {
  it('record --from a symlink to a file outside the repository (~/.ssh/id_ed25519) — refused, nothing stored, the error never quotes it (exit 2); stdin `-` still works', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const secret = secretFile(user);
    symlinkSync(secret, join(dir, 'HANDOFF.md'));
    const before = safeRefs(dir);
    const r = await cliWithin(user, dir, ['record', '--from', 'HANDOFF.md']);
    expect(r.code, r.stdout).toBe(2);
    expect(r.json.error.code).toBe('INVALID_INPUT');
    expect(JSON.stringify(r.json.error.problems)).toMatch(/outside the repository/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    // the same with every format named (through the library: the same call the CLI makes)
    for (const format of FORMATS) {
      const error = await record(user, dir, { from: { path: 'HANDOFF.md' }, format }).catch(
        (e: unknown) => e,
      );
      expect(isLedgerError(error) && error.code).toBe('INVALID_INPUT');
      expect(JSON.stringify((error as LedgerError).toJSON())).not.toContain(SECRET);
    }
    expect(safeRefs(dir)).toBe(before);
    // a directory on the way that is a symlink out of the repository
    symlinkSync(join(user.home, '.ssh'), join(dir, 'handoffs'));
    const through = await record(user, dir, { from: { path: 'handoffs/id_ed25519' } }).catch(
      (e: unknown) => e,
    );
    expect(isLedgerError(through) && through.code).toBe('INVALID_INPUT');
    expect(JSON.stringify((through as LedgerError).toJSON())).toMatch(/outside the repository/);
    expect(objectsHold(dir, SECRET)).toBe(false);
    // standard input is the user's own choice, and still works
    const piped = await cliWithin(user, dir, ['record', '--from', '-', '--format', 'ledger'], {
      stdin: JSON.stringify({ status: 'success', summary: 'from stdin' }),
    });
    expect(piped.code, piped.stdout).toBe(0);
  });

  it('record --from a FIFO, a symlink to /dev/zero, and --evidence a FIFO — refused at once, never read (exit 2)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    mkfifo(join(dir, 'handoff.json'));
    mkfifo(join(dir, 'validate.log'));
    symlinkSync('/dev/zero', join(dir, 'zero.md'));
    writeFileSync(join(dir, 'ok.json'), JSON.stringify({ status: 'success' }));
    const before = safeRefs(dir);
    const cases = [
      ['record', '--from', 'handoff.json'],
      ['record', '--from', 'zero.md'],
      ['record', '--from', 'ok.json', '--evidence', 'validate=validate.log'],
    ];
    const runs = await Promise.all(cases.map((args) => cliWithin(user, dir, args)));
    for (const [i, r] of runs.entries()) {
      expect({ args: cases[i], code: r.code }).toEqual({ args: cases[i], code: 2 });
      expect(JSON.stringify(r.json.error.problems)).toMatch(
        /FIFO|not a regular file|outside the repository/,
      );
    }
    expect(safeRefs(dir)).toBe(before);
  });

  it('a file that is not a handoff, named with --from (detected or forced format) — the error quotes none of its bytes (exit 2)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    writeFileSync(join(dir, 'credentials'), `aws_secret_access_key = ${SECRET}\nline two\n`);
    writeFileSync(
      join(dir, 'creds.json'),
      JSON.stringify({ token: SECRET, nested: { key: SECRET } }),
    );
    // Through the library for the whole matrix (the error object is what every output prints),
    // and once through the CLI.
    for (const file of ['credentials', 'creds.json']) {
      for (const format of [undefined, ...FORMATS]) {
        const error = await record(user, dir, {
          from: { path: file },
          ...(format === undefined ? {} : { format }),
        }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isLedgerError(error), `${file} ${format}`).toBe(true);
        const shown = JSON.stringify((error as LedgerError).toJSON());
        expect({ file, format, leaked: shown.includes(SECRET.slice(0, 12)) }).toEqual({
          file,
          format,
          leaked: false,
        });
      }
    }
    const r = await cliWithin(user, dir, ['record', '--from', 'creds.json', '--format', 'kxm']);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).not.toContain(SECRET.slice(0, 12));
  });

  it('verify --worktree while FIFOs are swapped in and out of artifact paths — never hangs, the swapped artifacts are stale or verified (O_NONBLOCK open + fstat)', async () => {
    const user = makeUser();
    const files: Record<string, string> = {};
    for (let i = 0; i < 4; i++) files[`a/f${i}.txt`] = `artifact ${i}\n`;
    const { dir } = await repoWithRecord(user, { status: 'success' }, files);
    // Many records naming the same four paths: every verify checks each path many times.
    const RECORDS = 12;
    for (let i = 0; i < RECORDS; i++)
      await record(user, dir, {
        status: 'success',
        summary: `#${i}`,
        artifacts: Object.keys(files),
      });
    for (const path of Object.keys(files)) mkfifo(join(dir, `${path}.fifo`));
    // A real process swaps a FIFO and the regular file in and out of every artifact path, as
    // fast as it can, half the time each, until killed: whatever a check saw when it looked,
    // the path may hold the other one when it opens it.
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); const paths = JSON.parse(process.argv[1]);
         const swap = (a, b, c) => { try { fs.renameSync(a, b); fs.renameSync(c, a); } catch {} };
         for (;;) {
           for (const p of paths) swap(p, p + '.reg', p + '.fifo');
           for (const p of paths) swap(p, p + '.fifo', p + '.reg');
         }`,
        JSON.stringify(Object.keys(files).map((p) => join(dir, p))),
      ],
      { stdio: 'ignore' },
    );
    try {
      for (let round = 0; round < 1; round++) {
        const r = await cliWithin(user, dir, ['verify', '--worktree'], { deadlineMs: 45_000 });
        expect(r.code, `round ${round}: ${r.stderr}`).toBe(0);
        const worktree = r.json.records
          .flatMap((x: any) => x.checks)
          .filter((c: any) => c.check === 'artifact.worktree');
        expect(worktree).toHaveLength(RECORDS * 4);
        for (const c of worktree) expect(['verified', 'stale']).toContain(c.verdict);
      }
    } finally {
      swapper.kill('SIGKILL');
    }
  }, 180_000);
});
