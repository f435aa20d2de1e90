/**
 * Re-running witnesses for one `verify` command: a throw-away directory (`ledger-rerun-*`),
 * one prepared checkout per candidate tree (written without git, then the policy's setup steps
 * run in it once), every command run under the isolation the caller chose, and everything
 * removed when the command ends — normally through `close()`, on Ctrl-C through the interrupt
 * clean-up.
 *
 * Witnesses of one tree run one after another in the same prepared checkout, as the steps of a
 * CI job share a workspace and as they ran in the work tree at record time (a `build` witness
 * before a `test` witness). Different trees are independent — each has its own checkout, HOME
 * and TMPDIR — so up to `jobs` of them run at once (`verify --rerun --jobs N`). The same command
 * on the same tree runs once per session: a record whose claimed check repeats its own witness
 * is not run twice.
 *
 * `jobs` bounds the commands running, not the work around them: up to `jobs` more trees are
 * checked out and their sandboxes built while those run, each sandbox then waiting for a free
 * slot before its command starts (`runWitness`'s gate). Done one after another in each slot,
 * the checkout and bubblewrap's start-up (about 60 ms a witness here, mostly waiting on the
 * kernel, not CPU) left a core idle for a third of a 0.2 s witness.
 */
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerError } from '../model/errors.js';
import { createSlots } from '../model/slots.js';
import type { ObjectReader } from '../store/port.js';
import { scrubbedEnv } from './env.js';
import { onInterrupt } from './interrupt.js';
import { CheckoutOverBudget, materializeTree, type CheckoutBudget } from './materialize.js';
import { runWitness, type WitnessRun } from './run.js';
import {
  sandboxArgv,
  sandboxBase,
  type Isolation,
  type SandboxBase,
  type SandboxBind,
} from './sandbox.js';
import { workTreeBinds, type WorkTreeIgnored } from './worktree-binds.js';

/** A command the policy runs in each prepared checkout before its witnesses (`npm ci --offline`). */
export interface SetupStep {
  command: string;
  timeoutMs: number;
  /** Whether this step may use the network (e.g. a `npm ci` that downloads). */
  network: boolean;
}

export interface RerunSessionOptions {
  reader: ObjectReader;
  /** Chosen by the caller (`probeIsolation`, then the policy's requirements). */
  isolation: Isolation;
  setup: readonly SetupStep[];
  timeoutMs: number;
  /** Whether witnesses (not setup steps: each says for itself) may use the network. */
  network: boolean;
  maxOutputBytes: number;
  /** What one checkout may write (default DEFAULT_CHECKOUT_BUDGET): the policy's rerun.checkout. */
  checkoutBudget?: CheckoutBudget;
  /** Paths a sandboxed command must never see: the repository, its git dir, ledger's cwd, HOME. */
  hidden: readonly string[];
  /** Further read-only paths (`readOnlyPaths`). */
  readOnly: readonly string[];
  /**
   * The auditor's npm cache, among `readOnly`: given to npm (`npm_config_cache`), whose HOME is
   * the throw-away one, with its logs there (the cache is read-only).
   */
  npmCache?: string;
  /** The size of each in-memory file system a sandboxed command sees (`SandboxSpec.tmpfsBytes`). */
  tmpfsBytes?: number;
  /** The environment the witness environment is scrubbed from (`scrubbedEnv`). */
  baseEnv: NodeJS.ProcessEnv;
  onProgress?: (message: string) => void;
  /** How often a running command reports its elapsed time. */
  heartbeatMs?: number;
  /**
   * How many trees may be worked on at once (checked out, set up, their witnesses run); default
   * 1. Witnesses of one tree always run one after another, in their shared checkout.
   */
  jobs?: number;
  /**
   * Record time only (`ledger record --isolate`, the hook, MCP): the work tree's git-ignored
   * entries, bound over each checkout (`workTreeBinds`). Re-runs never set it.
   */
  workTreeIgnored?: WorkTreeIgnored;
}

export type RerunOutcome =
  /** The command ran (whatever its exit code). */
  | { kind: 'ran'; run: WitnessRun }
  /** A setup step of this tree failed: the command did not run; `run` is the step's. */
  | { kind: 'setup-failed'; step: string; run: WitnessRun }
  /** The sandbox could not be set up for this run: nothing ran; `run.stderr` says why. */
  | { kind: 'sandbox-failed'; step?: string; run: WitnessRun }
  /** The tree was not checked out (over the checkout budget): nothing ran. */
  | { kind: 'checkout-refused'; reason: string };

export interface RerunSession {
  /**
   * `signal` (the caller gave up: an MCP call was cancelled) ends the tree's setup steps and the
   * command as a timeout would, and the run then rejects with its reason: a command ended that
   * way is no outcome. A run still waiting for its turn never starts. The first request for a
   * tree and command decides it.
   */
  run(tree: string, command: string, signal?: AbortSignal): Promise<RerunOutcome>;
  /** Removes every checkout. Idempotent. */
  close(): Promise<void>;
}

interface Prepared {
  dir: string;
  work: string;
  env: NodeJS.ProcessEnv;
  binds: readonly SandboxBind[];
  failed?: RerunOutcome;
}

const DEFAULT_HEARTBEAT_MS = 10_000;

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function ended(run: WitnessRun): string {
  if (run.timedOut) return 'timed out';
  return run.exitCode === null ? `ended by ${run.signal}` : `exit ${run.exitCode}`;
}

/**
 * How many trees a session with `jobs` slots works on at once: `jobs` running, as many being
 * prepared. A caller that asks for re-runs (verify's record loop) keeps this many in flight.
 */
export function treesInFlight(jobs: number): number {
  return 2 * Math.max(1, Math.floor(jobs));
}

export function createRerunSession(options: RerunSessionOptions): RerunSession {
  const progress = options.onProgress ?? (() => undefined);
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const prepared = new Map<string, Promise<Prepared>>();
  const results = new Map<string, Promise<RerunOutcome>>();
  let root: Promise<string> | undefined;
  let release: (() => void) | undefined;
  let closed = false;
  // Per tree, one command at a time: its witnesses share its checkout (and the next one's
  // sandbox is built only once the last one's has ended). Across trees, at most `jobs` commands
  // at once (`slots`, taken at the gate), and at most `jobs` more trees being checked out or
  // waiting, set up, for a slot (`open`, held from a tree's checkout through its command).
  const lanes = new Map<string, Promise<unknown>>();
  const jobs = Math.max(1, Math.floor(options.jobs ?? 1));
  const slots = createSlots(jobs);
  const open = createSlots(treesInFlight(jobs));
  const pending = new Set<Promise<unknown>>();
  let base: Promise<SandboxBase> | undefined;

  const sessionDir = (): Promise<string> => {
    root ??= (async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ledger-rerun-'));
      // Ctrl-C: the running command's group is killed first (registered later, so run first),
      // then this directory goes.
      release = onInterrupt(() =>
        rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }),
      );
      await mkdir(join(dir, 'root'));
      return dir;
    })();
    return root;
  };

  const exec = async (
    where: Prepared,
    command: string,
    timeoutMs: number,
    network: boolean,
    label: string,
    signal: AbortSignal | undefined,
  ): Promise<WitnessRun> => {
    signal?.throwIfAborted();
    const dir = await sessionDir();
    base ??= sandboxBase(options.isolation.mode, options.hidden);
    const argv = await sandboxArgv(
      options.isolation.mode,
      {
        writable: where.dir,
        cwd: where.work,
        hidden: options.hidden,
        readOnly: options.readOnly,
        network,
        ...(options.tmpfsBytes === undefined ? {} : { tmpfsBytes: options.tmpfsBytes }),
        binds: where.binds,
      },
      command,
      join(dir, 'root'),
      await base,
    );
    // Taken when the command may start, given back once its run has ended (also when the
    // sandbox ended before asking); never taken once the caller gave up.
    let slot: Promise<(() => void) | undefined> | undefined;
    const run = await runWitness({
      command,
      cwd: where.work,
      env: where.env,
      timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
      ...(argv === undefined ? {} : { argv }),
      ...(signal === undefined ? {} : { signal }),
      heartbeat: {
        everyMs: heartbeatMs,
        notify: (elapsed) => progress(`still running (${seconds(elapsed)}): ${command}`),
      },
      gate: async () => {
        const taking = slots.take(signal);
        slot = taking.catch(() => undefined);
        await taking;
        progress(`${label} (isolation: ${options.isolation.mode}): ${command}`);
      },
    });
    if (slot !== undefined) (await slot)?.();
    progress(
      run.sandboxFailed
        ? `could not isolate: ${command}`
        : `${ended(run)} after ${seconds(run.durationMs)}: ${command}`,
    );
    signal?.throwIfAborted();
    return run;
  };

  const prepare = async (
    tree: string,
    index: number,
    signal: AbortSignal | undefined,
  ): Promise<Prepared> => {
    const base = await sessionDir();
    const dir = join(base, `t${index}`);
    const work = join(dir, 'work');
    const home = join(dir, 'home');
    await mkdir(join(dir, 'tmp'), { recursive: true });
    await mkdir(home);
    progress(`checking out tree ${tree.slice(0, 12)} for re-runs`);
    try {
      await materializeTree(options.reader, tree, work, options.checkoutBudget);
    } catch (error) {
      if (!(error instanceof CheckoutOverBudget)) throw error;
      // What was written so far goes now, not when the session ends.
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
      return {
        dir,
        work,
        env: {},
        binds: [],
        failed: { kind: 'checkout-refused', reason: error.message },
      };
    }
    // HOME, the git config dirs and TMPDIR point into the throw-away directory, and
    // GIT_CEILING_DIRECTORIES stops a git run by the witness from finding any repository
    // above it (even when TMPDIR lies inside the audited one).
    const env = scrubbedEnv(options.baseEnv, {
      HOME: home,
      TMPDIR: join(dir, 'tmp'),
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      GIT_CEILING_DIRECTORIES: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      ...(options.npmCache === undefined
        ? {}
        : { npm_config_cache: options.npmCache, npm_config_logs_dir: join(home, '.npm-logs') }),
    });
    let binds: readonly SandboxBind[] = [];
    if (options.workTreeIgnored !== undefined) {
      const shown = await workTreeBinds(
        options.workTreeIgnored,
        work,
        options.isolation.mode === 'none',
      );
      binds = options.isolation.mode === 'none' ? [] : shown.binds;
      progress(
        `showing ${shown.binds.length} git-ignored entr${shown.binds.length === 1 ? 'y' : 'ies'} of the work tree to witnesses (read-write)`,
      );
      for (const line of shown.skipped) progress(`not shown to witnesses: ${line}`);
    }
    const ready: Prepared = { dir, work, env, binds };
    for (const [i, step] of options.setup.entries()) {
      const label = `setup ${i + 1}/${options.setup.length} in tree ${tree.slice(0, 12)}`;
      const run = await exec(ready, step.command, step.timeoutMs, step.network, label, signal);
      if (run.sandboxFailed) {
        ready.failed = { kind: 'sandbox-failed', step: step.command, run };
        break;
      }
      if (run.exitCode !== 0 || run.timedOut) {
        ready.failed = { kind: 'setup-failed', step: step.command, run };
        break;
      }
    }
    return ready;
  };

  const runOnce = async (
    tree: string,
    command: string,
    signal: AbortSignal | undefined,
  ): Promise<RerunOutcome> => {
    let checkout = prepared.get(tree);
    if (checkout === undefined) {
      checkout = prepare(tree, prepared.size, signal);
      prepared.set(tree, checkout);
    }
    const ready = await checkout;
    if (ready.failed) return ready.failed;
    const run = await exec(
      ready,
      command,
      options.timeoutMs,
      options.network,
      're-running',
      signal,
    );
    return run.sandboxFailed ? { kind: 'sandbox-failed', run } : { kind: 'ran', run };
  };

  return {
    run(tree, command, signal) {
      if (closed) {
        return Promise.reject(
          new LedgerError('USAGE', 'internal: a re-run was asked for after its session closed', {
            hint: 'This is a bug in ledger; please report it with the command you ran.',
          }),
        );
      }
      const key = `${tree}\0${command}`;
      let result = results.get(key);
      if (result === undefined) {
        const lane = lanes.get(tree) ?? Promise.resolve();
        result = lane.then(() => open.with(() => runOnce(tree, command, signal), signal));
        const settled = result.catch(() => undefined);
        lanes.set(tree, settled);
        pending.add(settled);
        void settled.then(() => pending.delete(settled));
        results.set(key, result);
      }
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      // Every command already asked for ends (or fails) before its checkout goes.
      while (pending.size > 0) await Promise.all([...pending]);
      if (root === undefined) return;
      const dir = await root.catch(() => undefined);
      if (dir !== undefined) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
      release?.();
    },
  };
}

/** The last `count` lines of output, decoded leniently and each cut to `width` characters. */
export function lastLines(bytes: Uint8Array, count = 10, width = 200): string[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const lines = text.replace(/\r\n/g, '\n').replace(/\n+$/u, '').split('\n');
  const tail = text.trim() === '' ? [] : lines.slice(-count);
  return tail.map((line) => (line.length > width ? `${line.slice(0, width)}…` : line));
}
