/**
 * Reading records back: id prefixes, one record, the log in its merged order, a task's heads.
 */
import type { z } from 'zod';
import { parseRecordIdPrefix } from '../canonical/index.js';
import type { LogOutput } from '../cli/json/outputs.js';
import { fanout, LOG_REF, RECORDS_DIR } from '../ledger/layout.js';
import { CausalHeads } from '../ledger/causal-heads.js';
import { readTip, walkLog, type LedgerIndex } from '../ledger/read.js';
import { readIndexedRecord, readRecord, type ReadRecord } from '../ledger/records.js';
import { lookupPath } from '../ledger/trees.js';
import { LedgerError } from '../model/errors.js';
import type { LedgerRecord } from '../model/record.js';
import { sanitizeLine } from '../paths/index.js';
import { parseCommit } from '../store/objects.js';
import type { ObjectReader, ObjectStore } from '../store/port.js';

/** A full id from a full id or a unique prefix (`sha256:ab12…` or `ab12…`), as git does. */
export function resolveId(index: LedgerIndex, given: string): string {
  const prefix = parseRecordIdPrefix(given);
  if (prefix === undefined) {
    throw new LedgerError('USAGE', `"${given}" is not a record id`, {
      hint: 'Give a record id (sha256:<hex>) or at least 4 of its hex digits; ledger log lists them.',
    });
  }
  const matches = [...index.records.keys()].filter((id) => id.slice(7).startsWith(prefix));
  if (matches.length === 0) {
    throw new LedgerError(
      'UNKNOWN_RECORD',
      `no record in the ledger has an id starting with ${prefix}`,
      {
        hint: 'ledger log lists the records; ledger sync fetches others from a remote.',
      },
    );
  }
  if (matches.length > 1) {
    throw new LedgerError('AMBIGUOUS_ID', `${prefix} matches ${matches.length} records`, {
      hint: `Give more digits: ${matches.slice(0, 4).join(', ')}${matches.length > 4 ? ', …' : ''}`,
    });
  }
  return matches[0]!;
}

export type LoadedRecord = ReadRecord;

/**
 * Reads and decodes one record through the ledger's one record reader: bytes that do not hash
 * to the id are an exit-3 error naming the record, never shown as the record.
 */
export function loadRecord(
  store: ObjectReader,
  index: LedgerIndex,
  id: string,
): Promise<LoadedRecord> {
  return readIndexedRecord(store, index, id);
}

/**
 * One `log --json` item, inferred from its schema (one declaration per answer, issue 22). The
 * import is type-only: `log` on an empty ledger must not load zod (test/cli/startup.test.ts).
 * `step` is set on a lifecycle step (what it did to which record), `lifecycle` on a handoff
 * (its state from the steps on it; none: pending).
 */
export type LogItem = z.infer<typeof LogOutput>[number];

/** True when the ledger has no record at all (not even one that a filter left out). */
export async function ledgerIsEmpty(store: ObjectStore): Promise<boolean> {
  const tip = await store.readRef(LOG_REF);
  if (tip === undefined) return true;
  const commit = await store.read(tip);
  if (!commit || commit.type !== 'commit') return false;
  return (await lookupPath(store, parseCommit(commit.bytes, tip).tree, RECORDS_DIR)) === undefined;
}

/**
 * Whether `--task` names a record's task: the stored value itself, or the form ledger shows
 * it in (`T-1\u{e0041}`), since a person types what they saw and an invisible character
 * cannot be typed. A look-alike never matches the plain name: `T-1` is not `T-1` + U+E0041.
 */
export function taskMatches(wanted: string, task: string | undefined): boolean {
  return task !== undefined && (task === wanted || sanitizeLine(task) === wanted);
}

/**
 * The records in the ledger's merged order: causal (every record after the ones it descends
 * from, newest first along each writer's history), not by time across writers — a record from
 * a clone that had not synced sorts below records made before it elsewhere (ties: height, then
 * entry id, the same in every clone). Read from the tip down and only as far as needed: `-n 20`
 * on a ledger of 100,000 records reads about twenty log entries and records (`walkLog`).
 */
export async function listLog(store: ObjectStore, options: ListOptions = {}): Promise<LogItem[]> {
  return (await listLogChecked(store, options)).items;
}

export interface ListOptions {
  task?: string;
  limit?: number;
  /** The tip commit a command already resolved (one snapshot per command); default: the ref. */
  at?: string | null;
}

/**
 * How far past `-n`'s cut `log` looks for records of a listed task concurrent with it (a head
 * the cut would hide): an honest fleet's concurrent records are the few made since the clones
 * last synced, and `log -n 20` must stay cheap on 1,000 writers that never did (bench/writers.mjs).
 */
export function lookPastCut(limit: number): number {
  return Math.max(64, 4 * limit);
}

/**
 * `listLog`, marking concurrent records of one task (red team, round eleven): `concurrentWith`
 * on a record that a record of its task listed above does not descend from, and with `-n`,
 * `concurrentBelow` on a task's first listed record naming the task's records below the cut
 * that do not descend into it (looked for over at most `lookPastCut` more entries; `unchecked`
 * when the look stopped there with entries left that may hold some).
 */
export async function listLogChecked(
  store: ObjectStore,
  options: ListOptions = {},
): Promise<{ items: LogItem[]; unchecked: boolean }> {
  const tipCommit = options.at === undefined ? await store.readRef(LOG_REF) : options.at;
  if (tipCommit === undefined || tipCommit === null) return { items: [], unchecked: false };
  const tip = await readTip(store, tipCommit);
  // Loaded only when there is a ledger to list: `log` on an empty ledger loads no format code
  // at all (its import graph is pinned by test/cli/startup.test.ts). These take the lifecycle
  // from src/formats/lifecycle.ts, not the registry, so a listing loads no parser and no zod.
  const [{ lifecycleStates, stepInfo }, { isLifecycleStep, lifecycleFormat }] = await Promise.all([
    import('./lifecycle-state.js'),
    import('./lifecycle-steps.js'),
  ]);
  const items: LogItem[] = [];
  const byId = new Map<string, LogItem>();
  const heads = new CausalHeads();
  /** A record's task as the heads are kept: `--task`'s own word for every record it matches. */
  const label = (task: string | undefined) => options.task ?? task;
  // Steps come after the record they act on: walking from the tip, a record's steps are seen
  // before it, whatever the filter or limit leaves out. Kept in the log's order, every step and
  // the listed handoffs, which is what the lifecycle's reading takes.
  const walked: { id: string; record: LedgerRecord }[] = [];
  const walk = walkLog(store, tip);
  let next = await walk.next();
  for (; !next.done; next = await walk.next()) {
    const { id: entryId, entry } = next.value;
    if (entry.record === null) {
      heads.feed(entryId, entry, undefined);
      continue;
    }
    const record = await readListed(store, tip.tree, entry.record);
    const step = isLifecycleStep(record) ? stepInfo(entry.record, record) : undefined;
    const listed = options.task === undefined || taskMatches(options.task, record.claims.task);
    if (step !== undefined || listed) walked.push({ id: entry.record, record });
    const mark = heads.feed(entryId, entry, listed ? label(record.claims.task) : undefined);
    if (!listed) continue;
    const of = step === undefined ? undefined : lifecycleFormat.lifecycle.linkOf(record);
    const item: LogItem = {
      id: entry.record,
      entry: entryId,
      height: entry.height,
      task: record.claims.task,
      run: record.claims.run,
      format: record.format,
      claimedStatus: record.claims.status,
      effectiveStatus: record.observed.effectiveStatus,
      recordedAt: record.observed.recordedAt,
      summary: record.claims.summary,
      ...(step === undefined || of === undefined
        ? {}
        : {
            step: {
              action: step.action,
              to: step.to,
              of,
              ...(step.by === undefined ? {} : { by: step.by }),
              ...(step.with === undefined ? {} : { with: step.with }),
            },
          }),
      ...(mark.first === undefined ? {} : { concurrentWith: mark.first }),
    };
    items.push(item);
    byId.set(item.id, item);
    if (options.limit !== undefined && items.length >= options.limit) break;
  }
  let unchecked = false;
  if (!next.done) {
    // The cut: look on for records of the listed tasks that descend into none of them.
    const tasks = new Set<string>();
    for (const item of items) {
      const task = label(item.task);
      if (task !== undefined) tasks.add(task);
    }
    const isBelow = (entryId: string) => [...tasks].every((t) => heads.isBelow(entryId, t));
    let budget = lookPastCut(options.limit ?? items.length);
    for (next = await walk.next(); !next.done; next = await walk.next()) {
      if (heads.settled(tasks)) break;
      if (budget-- === 0) {
        unchecked = true;
        break;
      }
      const { id: entryId, entry } = next.value;
      if (entry.record === null || isBelow(entryId)) {
        heads.feed(entryId, entry, undefined);
        continue;
      }
      const { task } = (await readListed(store, tip.tree, entry.record)).claims;
      const tracked =
        (options.task === undefined || taskMatches(options.task, task)) && label(task);
      const mark = heads.feed(entryId, entry, tracked && tasks.has(tracked) ? tracked : undefined);
      const first = mark.first === undefined ? undefined : byId.get(mark.first);
      if (first !== undefined) (first.concurrentBelow ??= []).push(entry.record);
    }
    await walk.return(undefined);
  }
  const states = lifecycleStates(walked.reverse());
  for (const item of items) {
    const state = states.get(item.id);
    if (state === undefined) continue;
    const last = state.last;
    item.lifecycle = {
      state: state.state,
      ...(last === undefined
        ? {}
        : {
            step: last.id,
            ...(last.by === undefined ? {} : { by: last.by }),
            at: last.at,
            ...(last.with === undefined ? {} : { with: last.with }),
          }),
      ...(state.setAside === undefined
        ? {}
        : { setAside: state.setAside, setAsideDetail: state.setAsideDetail }),
    };
  }
  return { items, unchecked };
}

/**
 * The heads of `task` (`CausalHeads`): the first in the merged order, and the others, which are
 * concurrent with it — none is newer. Reads from the tip down until every entry left descends
 * into a head: only the entries concurrent with the heads cost a record read, so a task whose
 * newest record sits on top of a synced history reads about as much as before.
 */
export async function headsOfTask(
  store: ObjectStore,
  at: string,
  task: string,
): Promise<{ id: string; concurrent: string[] } | undefined> {
  const tip = await readTip(store, at);
  const heads = new CausalHeads();
  for await (const { id: entryId, entry } of walkLog(store, tip)) {
    if (heads.headsOf(task).length > 0 && heads.settled([task])) break;
    if (entry.record === null || heads.isBelow(entryId, task)) {
      heads.feed(entryId, entry, undefined);
      continue;
    }
    const record = await readListed(store, tip.tree, entry.record);
    heads.feed(entryId, entry, taskMatches(task, record.claims.task) ? task : undefined);
  }
  const [first, ...concurrent] = heads.headsOf(task);
  return first === undefined ? undefined : { id: first, concurrent };
}

/** A record the log names, from the tip's tree (an entry naming a missing record is exit 3). */
async function readListed(store: ObjectStore, tree: string, id: string): Promise<LedgerRecord> {
  const found = await lookupPath(store, tree, [RECORDS_DIR, ...fanout(id)].join('/'));
  if (found === undefined)
    throw new LedgerError('UNKNOWN_RECORD', `record ${id} is not in the ledger`);
  return (await readRecord(store, id, found.oid)).record;
}
