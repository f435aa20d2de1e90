/**
 * Many writer refs, driven at random (issue 19): clones that record, take lifecycle steps, sync
 * (also `--no-push`), publish with `--push-only`, publish checkpoints that retire writer refs,
 * run `git gc`, and join the fleet, in an order a seed picks, now and then two at once, against
 * one bare remote; and now and then a record or a sync of any kind is SIGKILLed at one of its
 * write steps. Whatever the order, an honest clone's sync never fails (no false rollback after
 * a checkpoint retired a ref it saw, or its own, or after a killed sync), never loses a record
 * it held, and in the end every clone and a fresh one hold every record in one order with the
 * same lifecycle states, and verify. The fixed cases beside this file pin each path alone; this
 * walks the paths into each other.
 */
import { describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { listLog, verifyRepository, withRepo } from '../../src/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import { cloneOf, git, remoteWithClones, runWorker } from '../helpers/git.js';
import { RECORD_KILL_POINTS, SYNC_KILL_POINTS } from '../helpers/kill-points.js';
import { seededRandom } from '../helpers/seeded.js';
import { stress } from '../helpers/stress.js';
import {
  logIds,
  recordSummary,
  syncOutcome,
  useBuiltCli,
  type SyncOutcome,
} from '../helpers/sync-setup.js';

useBuiltCli();

// `npm test` walks 2 seeds (about 25 s on an idle machine, 50 s inside the suite); `npm run
// test:stress` walks 24, and LEDGER_RANDOM_WRITER_SEEDS sets a count of your own.
const SEEDS = stress(2, 24, 'LEDGER_RANDOM_WRITER_SEEDS');
const CLONES = 4;
const STEPS = 40;
type Op =
  'record' | 'step' | 'sync' | 'no-push' | 'push-only' | 'checkpoint' | 'gc' | 'join' | 'killed';
const OPS: [Op, number][] = [
  ['record', 0.3],
  ['step', 0.08],
  ['sync', 0.19],
  ['no-push', 0.05],
  ['push-only', 0.13],
  ['checkpoint', 0.09],
  ['gc', 0.05],
  ['join', 0.03],
  ['killed', 0.08],
];
/**
 * What a killed op runs, and the write steps it may be killed at (test/crash/crash.test.ts
 * kills each alone). A step the run never reaches (no join to write, no checkpoint) lets it end.
 */
const KILLABLE = {
  record: RECORD_KILL_POINTS,
  sync: [...SYNC_KILL_POINTS, 'checkpoint-after-publish'],
};
const KILLED_RUNS = ['record', 'full', 'push-only', 'checkpoint', 'no-push'] as const;
const MAX_CLONES = 6;

function pick(next: () => number): Op {
  let roll = next();
  for (const [op, weight] of OPS) if ((roll -= weight) < 0) return op;
  return 'sync';
}

describe('writer refs driven at random', () => {
  let retired = 0;
  let steps = 0;
  let kills = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    it(`seed ${seed}: ${CLONES} clones × ${STEPS} steps (record, lifecycle step, sync, --no-push, --push-only, --checkpoint, gc, a clone joining, a run killed at a write step; some two at once): no honest sync fails, nothing is lost, all converge`, async () => {
      const next = seededRandom(seed);
      const { remote, clones } = remoteWithClones(CLONES);
      const recorded = new Set<string>();
      const held = clones.map(() => new Set<string>());
      /** Handoffs some clone took a step on. */
      const stepped = new Set<string>();
      const trace: string[] = [];
      const expectSynced = (r: SyncOutcome, what: string) =>
        expect(
          r.code,
          `seed ${seed}, ${trace.join(' → ')}: ${what}: ${JSON.stringify(r.error)}`,
        ).toBe(0);
      const act = async (c: number, op: Op, step: number): Promise<void> => {
        const cwd = clones[c]!;
        if (op === 'record') {
          const id = await recordSummary(cwd, `seed ${seed} step ${step} clone ${c}`);
          recorded.add(id);
          held[c]!.add(id);
        } else if (op === 'step') {
          // A reviewer's step on a handoff this clone holds; a step the lifecycle forbids from
          // where the record is (one already rejected, say) is refused and writes nothing.
          const handoffs = [...held[c]!].filter((id) => recorded.has(id));
          const id = handoffs[Math.floor(next() * handoffs.length)];
          if (id === undefined) return;
          const action = next() < 0.5 ? 'accept' : 'reject';
          try {
            held[c]!.add((await applyLifecycle({ cwd, id, action, by: `clone ${c}` })).id);
            stepped.add(id);
            steps++;
          } catch (error) {
            if (!isLedgerError(error) || error.exitCode !== 2) throw error;
          }
        } else if (op === 'killed') {
          const run = KILLED_RUNS[Math.floor(next() * KILLED_RUNS.length)]!;
          const points = run === 'record' ? KILLABLE.record : KILLABLE.sync;
          const at = points[Math.floor(next() * points.length)]!;
          trace.push(`(${c} ${run} killed at ${at})`);
          const r = await runWorker(
            run === 'record' ? ['record', '1', `seed ${seed} step ${step}`] : ['sync-as', run],
            cwd,
            { env: { LEDGER_WORKER_KILL_AT: at } },
          );
          // Killed there, or ended whole when the run never reached that step.
          const ended = r.signal === 'SIGKILL' || r.code === 0;
          expect(ended, `seed ${seed}, ${trace.join(' → ')}: ${r.stderr}`).toBe(true);
          if (r.signal === 'SIGKILL') kills++;
          for (const id of r.acked) {
            recorded.add(id);
            held[c]!.add(id);
          }
        } else if (op === 'gc') {
          // Packs the remote's objects and refs, and this clone's (its markers among them).
          git(remote, 'gc', '-q', '--prune=now');
          git(cwd, 'gc', '-q');
        } else if (op === 'join') {
          // A new clone joins the fleet: a writer of its own, and nothing it saw before.
          if (clones.length < MAX_CLONES) {
            clones.push(cloneOf(remote));
            held.push(new Set());
          }
        } else {
          const r = await syncOutcome(cwd, {
            ...(op === 'no-push' ? { push: false } : {}),
            ...(op === 'push-only' ? { pushOnly: true } : {}),
            ...(op === 'checkpoint' ? { checkpoint: true } : {}),
          });
          expectSynced(r, `${c}:${op}`);
          retired += r.result?.checkpoint?.retired.length ?? 0;
        }
      };
      for (let step = 0; step < STEPS; step++) {
        // Now and then two clones at once (never one clone twice: its own record and sync
        // racing is test/concurrency's). The remote's `gc --prune=now` runs alone: beside a push
        // it may prune the objects being pushed, as git documents.
        const count = clones.length;
        const first = Math.floor(next() * count);
        const second = next() < 0.25 ? (first + 1 + Math.floor(next() * (count - 1))) % count : -1;
        const ops = [first, second]
          .filter((c) => c >= 0)
          .map((c) => [c, pick(next)] as const)
          .map(([c, op], _, all) => [c, all.length > 1 && op === 'gc' ? 'sync' : op] as const);
        trace.push(ops.map(([c, op]) => `${c}:${op}`).join('+'));
        await Promise.all(ops.map(([c, op]) => act(c, op, step)));
        // Nothing a clone held is ever lost, whatever it ran.
        for (const [c] of ops) {
          const now = new Set(await logIds(clones[c]!));
          for (const id of held[c]!)
            expect(now, `seed ${seed}, ${trace.join(' → ')}`).toContain(id);
          held[c] = now;
        }
      }
      // Every clone publishes, then takes in what the others published.
      for (const round of [1, 2])
        for (const [c, cwd] of clones.entries())
          expectSynced(await syncOutcome(cwd), `final ${round}, clone ${c}`);
      const order = await logIds(clones[0]!);
      for (const id of recorded) expect(order).toContain(id);
      for (const cwd of clones.slice(1)) expect(await logIds(cwd)).toEqual(order);
      // And on every record's lifecycle, whichever clone took a step first.
      const lifecycles = async (cwd: string) =>
        (await withRepo(cwd, ({ store }) => listLog(store))).map(
          (i) => [i.id, i.lifecycle] as const,
        );
      const states = await lifecycles(clones[0]!);
      for (const cwd of clones.slice(1)) expect(await lifecycles(cwd)).toEqual(states);
      // A step is always above the record it names, so each one taken counts: the first in
      // the log's order moves its record out of pending, whichever clone took it.
      for (const [id, lifecycle] of states)
        if (stepped.has(id)) expect(lifecycle?.state, id).toMatch(/^(accepted|rejected)$/);
      expect([...stepped].every((id) => states.some(([listed]) => listed === id))).toBe(true);
      const fresh = cloneOf(remote);
      expectSynced(await syncOutcome(fresh), 'a fresh clone');
      expect(await logIds(fresh)).toEqual(order);
      for (const cwd of [fresh, ...clones])
        expect((await verifyRepository({ cwd, cache: false })).exitCode).toBe(0);
      expect(git(fresh, 'fsck', '--strict', '--no-dangling')).toBe('');
    }, 300_000);
  }

  // The walks reached the paths they are for: a checkpoint retired writer refs that clones had
  // seen, steps were taken, runs were killed. One seed may miss them; all of them together must not.
  it('the walks retired writer refs, took lifecycle steps and killed runs', () => {
    expect(retired).toBeGreaterThan(0);
    expect(steps).toBeGreaterThan(0);
    expect(kills).toBeGreaterThan(0);
  });
});
