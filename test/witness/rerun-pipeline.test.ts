/**
 * Keeping the cores busy without weakening isolation: `jobs` bounds the commands that run, and
 * the next trees are checked out — and their sandboxes built — while those run. A built
 * sandbox waits for its slot (the gate) and only then starts its command; the next witness of
 * one tree still waits for the last one's sandbox to have ended.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { encodeTree, MODE } from '../../src/store/objects.js';
import {
  createRerunSession,
  forgetIsolationProbe,
  probeIsolation,
  runWitness,
  scrubbedEnv,
  type Isolation,
  type RerunOutcome,
} from '../../src/witness/index.js';
import { sandboxArgv } from '../../src/witness/sandbox.js';
import { tempDir } from '../helpers/env.js';

let best: Isolation;

beforeAll(async () => {
  forgetIsolationProbe();
  best = await probeIsolation();
});

async function treeOf(store: MemoryStore, name: string): Promise<string> {
  const blob = await store.write('blob', Buffer.from(`${name}\n`));
  return store.write('tree', encodeTree([{ mode: MODE.file, name, oid: blob }]));
}

const exitOf = (outcome: RerunOutcome) => (outcome.kind === 'ran' ? outcome.run.exitCode : -1);

describe('re-run pipeline', () => {
  it('checks the next tree out while a witness runs, and still runs one command at a time with jobs 1', async () => {
    // Without isolation a witness can look at the session directory. Each command waits
    // (bounded) for the other tree's checkout to appear, then checks that the other command is
    // not running beside it. Whichever runs first only sees the other tree if it was checked
    // out meanwhile (after the first had ended, it would never appear); which runs first is
    // the scheduler's choice.
    const store = new MemoryStore();
    const [a, b] = [await treeOf(store, 'a.txt'), await treeOf(store, 'b.txt')];
    const session = createRerunSession({
      reader: store,
      isolation: { mode: 'none', namespaces: [], unavailable: [] },
      setup: [],
      timeoutMs: 60_000,
      network: false,
      maxOutputBytes: 1 << 16,
      hidden: [],
      readOnly: [],
      baseEnv: process.env,
      jobs: 1,
    });
    const command = (me: string, other: string) => {
      const seen = `ls ../../t*/work/${other}.txt >/dev/null 2>&1`;
      const at = (name: string) => `ls ../../t*/work/${other}-${name} >/dev/null 2>&1`;
      return [
        `touch ${me}-start`,
        `i=0; while ! ${seen} && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done`,
        `${seen} || { echo "not checked out"; exit 1; }`,
        `if ${at('start')} && ! ${at('end')}; then echo "ran beside me"; exit 2; fi`,
        `touch ${me}-end`,
      ].join('\n');
    };
    try {
      const [ranA, ranB] = await Promise.all([
        session.run(a, command('a', 'b')),
        session.run(b, command('b', 'a')),
      ]);
      expect(ranA.kind === 'ran' && ranA.run.stdout.toString()).toBe('');
      expect(ranB.kind === 'ran' && ranB.run.stdout.toString()).toBe('');
      expect(exitOf(ranA)).toBe(0);
      expect(exitOf(ranB)).toBe(0);
    } finally {
      await session.close();
    }
  });

  it('builds a sandbox before its slot is free, and starts the command only once the gate opens', async () => {
    if (best.mode === 'none') return; // nothing to build here
    const base = tempDir('ledger-rerun-');
    const writable = join(base, 't0');
    const work = join(writable, 'work');
    mkdirSync(work, { recursive: true });
    mkdirSync(join(base, 'root'));
    const marker = join(work, 'ran');
    const argv = await sandboxArgv(
      best.mode,
      { writable, cwd: work, hidden: [], readOnly: [], network: false },
      'touch ran',
      join(base, 'root'),
    );
    let before: boolean | undefined;
    const run = await runWitness({
      command: 'touch ran',
      cwd: work,
      env: scrubbedEnv(process.env, { HOME: writable }),
      timeoutMs: 20_000,
      maxOutputBytes: 1 << 16,
      ...(argv ? { argv } : {}),
      gate: async () => {
        // The sandbox stands (its start byte came); a command it had started meanwhile would
        // have touched the file by now.
        await sleep(300);
        before = existsSync(marker);
      },
    });
    expect(run.sandboxFailed, run.stderr.toString()).toBe(false);
    expect(before).toBe(false);
    expect(run.exitCode).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
