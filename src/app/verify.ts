/**
 * `ledger verify`: the pure verifier over the repository, plus the one impure part — re-running
 * witnesses in a throw-away checkout of the candidate tree, only when the policy allows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLedgerIndex } from '../ledger/read.js';
import type { Policy } from './local.js';
import { readLocalPolicy, readPolicyFile, readRecordedHere } from './local.js';
import { resolveId } from './query.js';
import { withRepo } from './repo.js';
import type { ObjectReader } from '../store/port.js';
import { verifyLedger } from '../verify/verify.js';
import type { Rerunner, VerifyReport } from '../verify/types.js';
import { materializeTree, runWitness, scrubbedEnv } from '../witness/index.js';

export interface VerifyRequest {
  cwd: string;
  ids?: readonly string[];
  rerun?: boolean;
  strict?: boolean;
  policyFile?: string;
  timeoutMs?: number;
  onProgress?: (message: string) => void;
}

export function verifyRepository(request: VerifyRequest): Promise<VerifyReport> {
  return withRepo(request.cwd, async ({ repo, store }) => {
    const index = await readLedgerIndex(store);
    const ids = request.ids?.map((given) => resolveId(index, given));
    let rerun: Rerunner | undefined;
    if (request.rerun) {
      const policy = request.policyFile ? await readPolicyFile(request.policyFile) : await readLocalPolicy(repo);
      const recordedHere = await readRecordedHere(repo);
      rerun = makeRerunner(store, policy, recordedHere, request.timeoutMs, request.onProgress);
    }
    return verifyLedger(store, index, {
      ...(ids ? { ids } : {}),
      ...(rerun ? { rerun } : {}),
      ...(request.strict ? { strict: true } : {}),
    });
  });
}

function makeRerunner(
  store: ObjectReader,
  policy: Policy,
  recordedHere: ReadonlySet<string>,
  timeoutMs: number | undefined,
  onProgress: ((message: string) => void) | undefined,
): Rerunner {
  return async ({ recordId, command, candidateTree }) => {
    const allowed =
      policy.rerun.commands.includes(command) || (policy.rerun.recordedHere && recordedHere.has(recordId));
    if (!allowed) {
      return {
        ran: false,
        reason: recordedHere.has(recordId)
          ? 'not re-run: the policy does not allow this command'
          : 'not re-run: the record was not made in this clone and the policy does not allow the command',
      };
    }
    onProgress?.(`re-running in a clean checkout: ${command}`);
    const dir = await mkdtemp(join(tmpdir(), 'ledger-rerun-'));
    try {
      const work = join(dir, 'tree');
      await materializeTree(store, candidateTree, work);
      const run = await runWitness({
        command,
        cwd: work,
        env: scrubbedEnv(process.env, { HOME: dir }),
        timeoutMs: timeoutMs ?? policy.witnessTimeoutSeconds * 1000,
        maxOutputBytes: 1024 * 1024,
      });
      return { ran: true, result: { exitCode: run.exitCode, timedOut: run.timedOut } };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
