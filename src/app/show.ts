/**
 * `ledger show`: one record, for people or as JSON, or re-emitted in a seed format.
 *
 * Without `--as` it loads no format registry (every format's parser, yaml, zod): a record's
 * views come from src/formats/views.ts and its lifecycle from lifecycle-chain.ts; the registry is
 * imported only to re-emit (issue 21, test/cli/startup.test.ts).
 */
import { formatViewsOf } from '../formats/views.js';
import {
  heldEntriesMissing,
  heldEntriesSaid,
  recordedHereForReader,
  type HeldEntriesMissing,
} from './held-entries.js';
import { readLedgerIndex, type LedgerIndex } from '../ledger/read.js';
import { readKeptBlob } from '../ledger/records.js';
import { LedgerError } from '../model/errors.js';
import type { LedgerRecord } from '../model/record.js';
import type { ObjectStore } from '../store/port.js';
import { lifecycleChain } from './lifecycle-chain.js';
import { isLifecycleStep, lifecycleFormat } from './lifecycle-steps.js';
import { stepInfo } from './lifecycle-state.js';
import { readSignaturesOf } from '../ledger/leaves.js';
import { judgeRecordSignature, type SignatureVerdict, type Trust } from '../verify/signatures.js';
import { loadPolicy } from './policy/local.js';
import { observedProofOf, type ObservedProof } from './observed-proof.js';
import { headsOfTask, loadRecord, resolveId } from './query.js';
import { trustFrom } from './policy/trust.js';
import { withRepo } from './repo.js';

export interface ShowRequest {
  cwd: string;
  id?: string;
  latestOfTask?: string;
  /** The auditor's policy file, deciding which signers are trusted (default: git config, then none). */
  policyFile?: string;
  /** A shape of `emitterNames()`: the record re-emitted in it, with the loss report. */
  as?: string;
}

export interface Shown {
  /**
   * Every signature over the record id: armored text, the trusted principal (null when the
   * signature is invalid or its key is not trusted for the producer role) and whether it is.
   */
  signatures?: SignatureVerdict[];
  id: string;
  record: LedgerRecord;
  /** Whether this machine can tell that ledger observed the record's `observed` part. */
  observedProof: ObservedProof;
  emitted?: { bytes: Uint8Array; losses: string[]; original: boolean };
  /**
   * The format's derived views (its `views` hook, its lifecycle) for the JSON output; with
   * `--latest`, `concurrent`: the task's other heads (absent: the shown record is the only one).
   */
  extra: Record<string, unknown>;
  /** Log entries this clone held that the ledger no longer holds (held-entries.ts). */
  rollback?: HeldEntriesMissing;
}

export function showRecord(request: ShowRequest): Promise<Shown> {
  return withRepo(request.cwd, async ({ repo, store }) => {
    // Beside the index, the rollback check (it reads this clone's memory before the ref it
    // compares with); both settle before a throw.
    const [lostRead, indexRead] = await Promise.allSettled([
      heldEntriesMissing(repo, store),
      readLedgerIndex(store),
    ]);
    if (lostRead.status === 'rejected') throw lostRead.reason;
    if (indexRead.status === 'rejected') throw indexRead.reason;
    const [rollback, index] = [lostRead.value, indexRead.value];
    const { id, concurrent } = await whichRecord(store, index, request).catch((error: unknown) => {
      throw rollback === undefined ? error : notFoundAfterRollback(error, rollback);
    });
    const { record } = await loadRecord(store, index, id);
    const loaded = await loadPolicy(request.policyFile);
    const trust = trustFrom(loaded, new Date());
    const signatures = (await readSignaturesOf(store, index, id)).map((s) =>
      judgeRecordSignature(id, s.armored, trust, record.observed.producer),
    );
    const observedProof = await observedProofOf(id, signatures, record.observed.producer, () =>
      recordedHereForReader(repo, store),
    );
    const source = async () => {
      if (!record.observed.source) return undefined;
      const kept = await readKeptBlob(
        store,
        id,
        index.records.get(id)!,
        record.observed.source.sha256,
      );
      if (!kept)
        throw new LedgerError('CORRUPT', `record ${id} lost its source bytes`, { record: id });
      return kept;
    };
    const kept = await source();
    const extra = formatViewsOf(record, kept);
    // Every record has a lifecycle (a step of another format acts on it too): its state, the
    // step that set it, who that step says took it and when.
    const chain = await lifecycleChain(store, index, id);
    const infos = chain.ids.slice(1).map((step, i) => stepInfo(step, chain.records[i + 1]!));
    const last = infos.find((s) => s.id === chain.last);
    extra['lifecycle'] = {
      state: chain.state ?? lifecycleFormat.lifecycle.initialState,
      chain: chain.ids,
      ...(last === undefined
        ? {}
        : {
            step: last.id,
            ...(last.by === undefined ? {} : { by: last.by }),
            at: last.at,
            ...(last.with === undefined ? {} : { with: last.with }),
          }),
      // Steps of a fork's branch not followed (src/app/lifecycle-fork.ts): named, not counted.
      ...(chain.setAside === undefined
        ? {}
        : { setAside: chain.setAside, setAsideDetail: chain.setAsideDetail }),
      // Under the auditor's requireReviewer, what the gate counts beside the chain as read: a
      // keyless step the chain ends on counts for nothing there (red team, round fifteen).
      ...(last !== undefined && loaded.policy.lifecycle?.requireReviewer
        ? { counted: await countedLifecycle(store, index, id, trust) }
        : {}),
    };
    if (isLifecycleStep(record)) {
      const info = stepInfo(id, record);
      extra['lifecycleStep'] = {
        action: info.action,
        to: info.to,
        of: lifecycleFormat.lifecycle.linkOf(record)!,
        ...(info.by === undefined ? {} : { by: info.by }),
        ...(info.with === undefined ? {} : { with: info.with }),
      };
    }
    if (concurrent !== undefined) extra['concurrent'] = concurrent;
    const said = rollback === undefined ? {} : { rollback };
    if (request.as === undefined) return { id, record, observedProof, extra, signatures, ...said };
    const { emitAs, sourceShapeOf } = await import('../formats/index.js');
    // The kept bytes are given back only in the shape they were written in.
    if (kept !== undefined && request.as === sourceShapeOf(record)) {
      return {
        id,
        record,
        observedProof,
        extra,
        emitted: { bytes: kept, losses: [], original: true },
        ...said,
      };
    }
    const emitted = emitAs(request.as, record);
    return { id, record, observedProof, extra, emitted: { ...emitted, original: false }, ...said };
  });
}

/** The record asked for: by id (or prefix), or the task's heads with `--latest`. */
async function whichRecord(
  store: Parameters<typeof headsOfTask>[0],
  index: LedgerIndex,
  request: ShowRequest,
): Promise<{ id: string; concurrent?: string[] }> {
  if (request.latestOfTask === undefined) return { id: resolveId(index, request.id ?? '') };
  // The task's heads, not the first in the merged order: that order is causal, and a record
  // from a fresh clone sorts below older ones (red team, round eleven). More than one head is
  // said, never settled silently; the merged order's first is shown, so scripts keep working.
  const heads =
    index.tipCommit === undefined
      ? undefined
      : await headsOfTask(store, index.tipCommit, request.latestOfTask);
  if (!heads) {
    throw new LedgerError('UNKNOWN_RECORD', `no record of task ${request.latestOfTask}`, {
      hint: 'ledger log lists the tasks.',
    });
  }
  return heads.concurrent.length > 0
    ? { id: heads.id, concurrent: heads.concurrent }
    : { id: heads.id };
}

/**
 * "No such record" from a ledger that lost entries this clone held cannot be trusted: the record
 * may have been among them. Said as the rollback it may be (exit 3), not as a record that never
 * was (red team, round twelve: `show --latest` of a task whose failing record was rolled away).
 */
function notFoundAfterRollback(error: unknown, lost: HeldEntriesMissing): unknown {
  if (!(error instanceof LedgerError) || error.code !== 'UNKNOWN_RECORD') return error;
  return new LedgerError(
    'ROLLBACK',
    `${error.message}; ${heldEntriesSaid(lost)}: the ledger was rolled back or rewritten, and the record may have been among them`,
    {
      hint: 'Run ledger verify to see what is missing; ledger sync from a clone that holds it brings it back.',
    },
  );
}

/** The lifecycle as the policy's requireReviewer counts it: export's reading, one rule. */
async function countedLifecycle(
  store: ObjectStore,
  index: LedgerIndex,
  id: string,
  trust: Trust | undefined,
) {
  const { exportLifecycle } = await import('./export-lifecycle.js');
  const counted = await exportLifecycle(store, index, id, { trust, requireReviewer: true });
  return {
    state: counted.state,
    ...(counted.step === undefined ? {} : { step: counted.step.id }),
    ...(counted.reviewer === undefined ? {} : { reviewer: counted.reviewer }),
    ...(counted.uncounted === undefined ? {} : { uncounted: counted.uncounted }),
    line: counted.line,
  };
}
