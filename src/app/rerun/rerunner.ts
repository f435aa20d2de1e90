import { createHash } from 'node:crypto';
import type { Rerunner, RerunOutput } from '../../verify/types.js';
import {
  lastLines,
  maskSecrets,
  secretsOf,
  type IsolationMode,
  type RerunSession,
  type WitnessRun,
} from '../../witness/index.js';
import type { Policy } from '../policy/local.js';
import { rerunDecision } from '../policy/rerun-policy.js';
import { rerunHints } from './hints.js';

/**
 * The policy decides (who wrote the command, where the record was made), the session runs.
 * What a run printed is summarised for the report: digests of the whole kept output, and its
 * last lines with any secret of this process's environment masked (a witness that could read
 * it — only without isolation — must not get it printed). Once `signal` aborts (the caller gave
 * up), the running commands are ended and every request rejects with its reason: a command
 * ended that way is no outcome to weigh.
 */
export function makeRerunner(
  session: RerunSession,
  policy: Policy,
  recordedHere: ReadonlySet<string>,
  mode: IsolationMode,
  signal?: AbortSignal,
): Rerunner {
  const secrets = secretsOf(process.env);
  const summarise = (run: WitnessRun, setup?: string): RerunOutput => {
    const digest = (bytes: Buffer, truncated: boolean) => ({
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
      truncated,
    });
    return {
      isolation: mode,
      exitCode: run.exitCode,
      signal: run.signal,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      stdout: digest(run.stdout, run.stdoutTruncated),
      stderr: digest(run.stderr, run.stderrTruncated),
      tail: {
        stdout: lastLines(maskSecrets(run.stdout, secrets, run.stdoutTruncated).bytes),
        stderr: lastLines(maskSecrets(run.stderr, secrets, run.stderrTruncated).bytes),
      },
      ...(setup === undefined ? {} : { setup }),
    };
  };
  return async ({ recordId, command, candidateTree, origin }) => {
    const decision = rerunDecision(policy.rerun, {
      origin,
      command,
      recordedHere: recordedHere.has(recordId),
    });
    if (!decision.allowed) return { ran: false, reason: decision.reason };
    signal?.throwIfAborted();
    const outcome = await session.run(candidateTree, command, signal);
    if (outcome.kind === 'checkout-refused')
      return { ran: false, attempted: true, reason: `not re-run: ${outcome.reason}` };
    const { run } = outcome;
    const how = run.timedOut ? 'timed out' : `exit ${run.exitCode ?? run.signal}`;
    switch (outcome.kind) {
      case 'setup-failed':
        return {
          ran: false,
          attempted: true,
          reason: `not re-run: setup step \`${outcome.step}\` failed in the checkout (${how})`,
          output: summarise(run, outcome.step),
        };
      case 'sandbox-failed': {
        const said = lastLines(run.stderr, 1)[0] ?? `exit ${run.exitCode ?? run.signal}`;
        return {
          ran: false,
          attempted: true,
          reason: `not re-run: the ${mode} sandbox could not be set up (${said})`,
          output: summarise(run, outcome.step),
        };
      }
      case 'ran': {
        const output = summarise(run);
        const stderr = maskSecrets(run.stderr, secrets, run.stderrTruncated).bytes;
        const hints = rerunHints(
          {
            exitCode: run.exitCode,
            timedOut: run.timedOut,
            stderr: Buffer.from(stderr).toString('utf8'),
          },
          { hasSetup: (policy.rerun.setup ?? []).length > 0 },
        );
        return {
          ran: true,
          result: {
            exitCode: run.exitCode,
            signal: run.signal,
            timedOut: run.timedOut,
            output,
            ...(hints.length === 0 ? {} : { hints }),
          },
        };
      }
    }
  };
}
