/**
 * Issue 21: bin/run.js records without oclif (src/cli/fast-record.ts) for command lines it fully
 * understands. The promise is that nobody can tell: the same record, the same bytes on stdout
 * and stderr, the same exit code as oclif's path (src/cli/main.ts, run in this process by
 * test/helpers/both-ways.ts; the binary is a child process of its own) — for records
 * made, inputs refused, failures after a witness ran — and that an agent cannot shape a command
 * line the fast path reads differently from oclif (a bare word oclif adds to the last repeatable
 * flag, a repeated flag, a value that looks like a flag): those all go to oclif.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import RecordCommand from '../../commands/record.js';
import { FAST_RECORD_FLAGS, fastRecordArgs } from '../../src/cli/fast-record.js';
import { bothWays, bothWaysAtOnce } from '../helpers/both-ways.js';
import { cleanup, gitdir, tempDir, writeFiles, type CliResult } from '../helpers/git.js';
import { PRIVATE_KEY } from '../helpers/secrets.js';

afterAll(cleanup);

const DEFAULTS = {
  'tracked-only': false,
  'keep-output': true,
  'witness-timeout': 600,
  isolate: false,
  base: 'HEAD',
};

describe('which record command lines the fast path takes', () => {
  it('every flag in its --name value and --name=value forms, switches and their --no- forms', () => {
    expect(fastRecordArgs(['record'])).toEqual({ json: false, flags: DEFAULTS });
    expect(
      fastRecordArgs([
        'record',
        '--json',
        '--task',
        'T-1',
        '--status=success',
        '--summary',
        'a b = c',
        '--artifact',
        'a.ts',
        '--artifact=b.ts',
        '--witness',
        'npm test',
        '--evidence',
        'log=build.log',
        '--witness-timeout',
        '30',
        '--no-keep-output',
        '--tracked-only',
        '--no-sign',
        '--from',
        '-',
      ]),
    ).toEqual({
      json: true,
      flags: {
        ...DEFAULTS,
        task: 'T-1',
        status: 'success',
        summary: 'a b = c',
        artifact: ['a.ts', 'b.ts'],
        witness: ['npm test'],
        evidence: ['log=build.log'],
        'witness-timeout': 30,
        'keep-output': false,
        'tracked-only': true,
        sign: false,
        from: '-',
      },
    });
  });

  it('leaves everything else to oclif', () => {
    for (const argv of [
      ['records'],
      ['--json', 'record'],
      ['record', '--help'],
      ['record', '-h'],
      ['record', 'extra'],
      ['record', '--'],
      ['record', '--bogus'],
      // oclif adds a bare word to the repeatable flag before it: not ours to guess.
      ['record', '--artifact', 'a.ts', 'b.ts'],
      ['record', '--status', 'success', 'failed'],
      ['record', '--json', '--json'],
      ['record', '--task', 'a', '--task', 'b'],
      ['record', '--sign', '--no-sign'],
      ['record', '--keep-output', '--keep-output'],
      ['record', '--json=true'],
      ['record', '--no-json'],
      ['record', '--no-isolate'],
      ['record', '--task'],
      ['record', '--task='],
      ['record', '--summary', '--json'],
      ['record', '--summary', '-x'],
      ['record', '--summary=-x'],
      ['record', '--summary', '-'],
      ['record', '--witness-timeout', '0'],
      ['record', '--witness-timeout', '010'],
      ['record', '--witness-timeout', '1e3'],
      ['record', '--Task', 'x'],
      ['record', '-status', 'success'],
    ])
      expect(fastRecordArgs(argv), argv.join(' ')).toBeUndefined();
  });

  it("knows only flags the command has, each of the command's kind, with the command's defaults", () => {
    const flags = { ...RecordCommand.baseFlags, ...RecordCommand.flags } as Record<
      string,
      { type: string; multiple?: boolean; allowNo?: boolean; default?: unknown }
    >;
    for (const name of FAST_RECORD_FLAGS.single) {
      expect(flags[name]?.type, name).toBe('option');
      expect(flags[name]?.multiple ?? false, name).toBe(false);
    }
    for (const name of FAST_RECORD_FLAGS.repeated) expect(flags[name]?.multiple, name).toBe(true);
    for (const name of FAST_RECORD_FLAGS.switches) expect(flags[name]?.type, name).toBe('boolean');
    for (const name of ['keep-output', 'sign']) expect(flags[name]?.allowNo, name).toBe(true);
    for (const name of ['json', 'tracked-only', 'isolate'])
      expect(flags[name]?.allowNo ?? false).toBe(false);
    for (const [name, value] of Object.entries(DEFAULTS))
      expect(flags[name]?.default, name).toBe(value);
    // Every flag of the command is known: a new one must be taught here or it goes to oclif.
    expect(
      Object.keys(flags).filter(
        (name) =>
          !FAST_RECORD_FLAGS.single.has(name) &&
          !FAST_RECORD_FLAGS.repeated.has(name) &&
          !FAST_RECORD_FLAGS.switches.has(name),
      ),
    ).toEqual([]);
  });
});

/** Ids, commit ids and times differ between two records of the same work; nothing else may. */
function normalized(r: CliResult): CliResult {
  const scrub = (s: string) =>
    s
      .replace(/sha256:[0-9a-f]{64}/g, 'sha256:ID')
      .replace(/\b[0-9a-f]{40}\b/g, 'OID')
      // The clone's memory directory: ledger and clone ids differ between the twin repositories.
      .replace(/\b[0-9a-f]{32}\b/g, 'HEX')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, 'TIME');
  return { code: r.code, stdout: scrub(r.stdout), stderr: scrub(r.stderr) };
}

/** Two repositories holding the same work: one for each path. */
function twins(files: Record<string, string>): { fast: string; oclif: string } {
  const fast = gitdir();
  const oclif = gitdir();
  writeFiles(fast, files);
  writeFiles(oclif, files);
  return { fast, oclif };
}

describe('ledger record without oclif records and answers exactly as oclif does', () => {
  it('a record made: the same candidate tree and digests, the same output, text and --json', async () => {
    const dirs = twins({ 'src/app.ts': 'export const x = 2;\n', 'src/new.ts': 'export {};\n' });
    for (const args of [
      ['record', '--json', '--status', 'success', '--summary', 'work', '--artifact', 'src/new.ts'],
      ['record', '--task=T-2', '--status', 'success', '--witness', 'false', '--no-keep-output'],
    ]) {
      const { fast, oclif } = await bothWays(args, dirs);
      expect(fast.code, fast.stderr).toBe(0);
      expect(normalized(fast)).toEqual(normalized(oclif));
    }
    const { fast, oclif } = await bothWays(['record', '--json', '--status', 'failed'], dirs);
    // The records themselves: the same candidate tree on both sides.
    expect(JSON.parse(fast.stdout).candidateTree).toBe(JSON.parse(oclif.stdout).candidateTree);
    const text = await bothWays(['record', '--status', 'success', '--summary', 'text'], dirs);
    expect(text.fast.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    expect(normalized(text.fast)).toEqual(normalized(text.oclif));
  }, 120_000);

  it('refusals: bad input, a secret, outside a repository — the same bytes and exit code', async () => {
    const dirs = twins({ id_rsa: PRIVATE_KEY, 'notes.txt': PRIVATE_KEY });
    const lines = [
      ['record', '--status', 'done'],
      ['record', '--json', '--status', 'done', '--format', 'nope', '--evidence', 'noequals'],
      ['record', '--json', '--status', 'success'],
      ['record', '--status', 'success', '--artifact', 'a.ts', 'b.ts'],
    ];
    // Refusals write nothing: every line can run at once, in the same two repositories.
    const runs = await bothWaysAtOnce(lines, dirs);
    runs.forEach(({ fast, oclif }, i) => {
      expect(fast.code, lines[i]!.join(' ')).toBe(2);
      expect(fast, lines[i]!.join(' ')).toEqual(oclif);
    });
    const outside = tempDir();
    const { fast, oclif } = await bothWays(['record', '--json', '--status', 'success'], {
      fast: outside,
      oclif: outside,
    });
    expect(fast.code).toBe(2);
    expect(fast).toEqual(oclif);
  }, 120_000);

  it('a bug is a bug on both paths (exit 4, the same JSON)', async () => {
    const dir = gitdir();
    const { fast, oclif } = await bothWays(
      ['record', '--json', '--status', 'success'],
      { fast: dir, oclif: dir },
      { LEDGER_TEST_BUG_AT: 'command' },
    );
    expect(fast.code).toBe(4);
    expect(fast).toEqual(oclif);
  });

  it('a record that fails after its witness ran is answered there, never run a second time', async () => {
    const dirs = twins({});
    const counts = { fast: join(tempDir(), 'runs'), oclif: join(tempDir(), 'runs') };
    for (const [side, dir] of Object.entries(dirs)) {
      writeFileSync(counts[side as 'fast' | 'oclif'], '');
      // The witness moves the ledger's ref to a commit that is no ledger entry: tampering (3).
      writeFiles(dir, {
        'witness.sh': `echo ran >> '${counts[side as 'fast' | 'oclif']}'\ngit update-ref refs/ledger/log HEAD\n`,
      });
    }
    // A ledger to tamper with: one record first.
    const first = await bothWays(['record', '--status', 'success'], dirs);
    expect(first.fast.code, first.fast.stderr).toBe(0);
    const { fast, oclif } = await bothWays(
      ['record', '--status', 'success', '--witness', 'sh witness.sh'],
      dirs,
    );
    expect(fast.code, fast.stderr).toBe(3);
    expect(normalized(fast)).toEqual(normalized(oclif));
    expect(readFileSync(counts.fast, 'utf8')).toBe('ran\n');
    expect(readFileSync(counts.oclif, 'utf8')).toBe('ran\n');
  });

  it('--from - reads the handoff from stdin once, the same on both paths', async () => {
    const dirs = twins({ 'src/app.ts': 'export const x = 3;\n' });
    const handoff = JSON.stringify({ status: 'success', summary: 'from stdin', task: 'T-9' });
    const { fast, oclif } = await bothWays(['record', '--json', '--from', '-'], dirs, {}, handoff);
    expect(fast.code, fast.stderr).toBe(0);
    expect(normalized(fast)).toEqual(normalized(oclif));
    expect(JSON.parse(fast.stdout)).toMatchObject({ ok: true, claimedStatus: 'success' });
  });
});
