/**
 * `verify`: recompute everything a record asserts, through the store port only. Integrity
 * checks cover what `ledger` itself wrote (ids, canonical bytes, the chain, observations
 * against the stored objects, the effective status re-derived from what the record kept);
 * claim checks cover what the agent asserted. Every check has an id unique within its record.
 */
import type { FormatOptions } from '../model/format-options.js';
import { LOG_REF } from '../ledger/layout.js';
import type { LedgerIndex } from '../ledger/read.js';
import { bySubject, readAttestations, readSignatures } from '../ledger/leaves.js';
import type { LedgerRecord, LogEntry } from '../model/record.js';
import type { ObjectReader } from '../store/port.js';
import { checkChain } from './chain.js';
import { checkChainSince, type SincePlan, type VerifiedState } from './since.js';
import { fail, identifyChecks, unverifiable } from './checks.js';
import { canCheckInWorkers, checkRecordsInWorkers } from './parallel.js';
import { prefetchRecords } from './prefetch.js';
import {
  checkRecord,
  type CheckedRecord,
  type RecordCheckOptions,
  type RecordTask,
} from './record.js';
import type { Trust } from './signatures.js';
import type { TrustedAttestation } from './attested.js';
import type { Check, CheckDraft, RecordReport, Rerunner, VerifyReport } from './types.js';

export interface VerifyOptions {
  /** Records to verify (full ids); all when undefined. The chain is always checked. */
  ids?: readonly string[];
  rerun?: Rerunner;
  strict?: boolean;
  /**
   * False when the caller checks the chain itself (sync checks only the entries new to this
   * clone): the entries in the index are still hash-checked and decoded, and name the records.
   */
  chain?: boolean;
  /**
   * With `chain: false`: the entries of `index.entries`, already hash-checked and decoded by
   * the caller (sync's chain check, which reports any that did not decode). They name the
   * records and are not read again: a first sync of 10,000 records read and decoded every new
   * entry twice.
   */
  entries?: ReadonlyMap<string, LogEntry>;
  /**
   * Trust material from the auditor's policy (allowed_signers, roles, whether signatures are
   * required). Without it signatures are still checked cryptographically and reported, but a
   * producer is never `verified`.
   */
  trust?: Trust;
  /**
   * `--from-attestation`: trusted attestations by record id, whose re-run verdicts are applied
   * to each record's checks before `keepVerified` counts and drops the verified ones.
   */
  attested?: ReadonlyMap<string, readonly TrustedAttestation[]>;
  /** `--from-attestation`: attestations whose auditor's key lapsed since, by record id. */
  lapsed?: ReadonlyMap<string, readonly TrustedAttestation[]>;
  /** The verify time, for clock checks. Default: now. */
  now?: Date;
  /**
   * The work tree's path, to parse the kept source of a v1 record (which did not keep the path
   * it was recorded in) the way it most likely was. v2 records carry their own.
   */
  root?: string;
  /** Stricter readings of the formats' rules the auditor's policy switches on (derived.ts). */
  formatOptions?: FormatOptions;
  /**
   * A ledger state that verified before (the verified-state cache): only what differs from it
   * is checked (`since.ts`). Ignored with `ids`, and when the ledger is not that state plus
   * additions — then everything is verified and `report.since.used` is false with the reason.
   */
  since?: VerifiedState;
  /**
   * False: a record's `verified` checks are counted (`RecordReport.verified`), not kept. None of
   * them can change the exit code, and a person reading text output sees only the others — so
   * a 100,000-record verify holds what went wrong, not two million passed checks (measured:
   * 1.8 GB peak RSS with every check kept). Default true (JSON, attestations need them all).
   */
  keepVerified?: boolean;
  /**
   * Called with the base commit of every record whose blob decoded (the verified-state cache
   * keeps them, to re-check later that they are still in the repository).
   */
  onBaseCommit?: (commit: string) => void;
  /**
   * The repository is a shallow clone: a missing base commit is then most likely not fetched,
   * and its finding says how to fetch it. Wording only, never a verdict.
   */
  shallow?: boolean;
  /** Called with every record whose blob decoded. */
  onRecord?: (id: string, record: LedgerRecord) => void;
  /**
   * With `rerun`: how many records are verified at once (default 1, one after another). The
   * re-runner bounds how many commands run at once; this only lets them be asked for together.
   */
  rerunJobs?: number;
  /** Called as each record's verdicts are in: how many are done of how many (re-run progress). */
  onRecordDone?: (done: number, total: number, id: string) => void;
  /**
   * The caller gave up: no further record is started in this thread (the re-runner ends the
   * running witnesses), and the call rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /**
   * Worker threads to check records in (`parallel.ts`); 1 or undefined: this thread. Ignored
   * with `rerun` (re-runs share one checkout session) and where the worker module cannot be
   * loaded (run from the TypeScript sources). The reports are the same either way.
   */
  workers?: number;
  /**
   * Fewest records per worker (default 100): a worker costs its start-up (loading the checks'
   * modules), which a verify of a few records does not win back.
   */
  recordsPerWorker?: number;
}

const RECORDS_PER_WORKER = 100;

/** Records read ahead at once (`prefetch.ts`). */
const PREFETCH_WINDOW = 500;

/** Records verified concurrently (their object reads pipelined through the store). */
const RECORDS_IN_FLIGHT = 8;

/**
 * Since a verified tip: the attestations that are new or changed, and those a new signature
 * signs — an old attestation signed only now may be trusted only now, so it is read and the
 * record it is about checked again, as `--full` would weigh it.
 */
function attestationsToRead(
  index: LedgerIndex,
  incremental: {
    attestations: ReadonlyMap<string, string>;
    signatures: ReadonlyMap<string, string>;
  },
  signed: { leaves: ReadonlyMap<string, { subject: string }> },
): Map<string, string> {
  const read = new Map(incremental.attestations);
  for (const id of incremental.signatures.keys()) {
    const subject = signed.leaves.get(id)?.subject;
    const leaf = subject === undefined ? undefined : index.attestations?.get(subject);
    if (subject !== undefined && leaf !== undefined) read.set(subject, leaf);
  }
  return read;
}

export async function verifyLedger(
  store: ObjectReader,
  index: LedgerIndex,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  let ledger: Check[] = [];
  let plan: SincePlan | undefined;
  if (options.since !== undefined && options.ids === undefined && options.chain !== false) {
    const checks: Check[] = [];
    plan = await checkChainSince(store, index, options.since, checks);
    if (plan.descends) ledger = checks;
  }
  const incremental = plan?.descends === true ? plan : undefined;
  const recordsInLog = new Map<string, number>();
  if (incremental) {
    for (const [id, n] of incremental.named) recordsInLog.set(id, n);
  } else {
    const entries =
      options.chain === false && options.entries !== undefined
        ? options.entries
        : await checkChain(
            store,
            options.chain === false ? { ...index, tipCommit: undefined } : index,
            ledger,
          );
    for (const entry of entries.values()) {
      if (entry.record !== null)
        recordsInLog.set(entry.record, (recordsInLog.get(entry.record) ?? 0) + 1);
    }
  }
  // Every signature is read (a record's verdict needs all of its signatures); findings about
  // leaves are made, since a verified tip, only for leaves that are new or changed.
  const signed = await readSignatures(store, index);
  const attested = await readAttestations(
    store,
    incremental
      ? { ...index, attestations: attestationsToRead(index, incremental, signed) }
      : index,
  );
  const newLeaf = (id: string) =>
    !incremental || incremental.signatures.has(id) || incremental.attestations.has(id);
  for (const damaged of [...signed.damaged, ...attested.damaged])
    if (newLeaf(damaged.id))
      ledger.push(fail(`leaves[${damaged.id}]`, 'leaf', damaged.id, damaged.problem, true));
  // A leaf about nothing in the ledger is junk anyone with push access could add: a finding
  // about that leaf, never an integrity failure of the ledger (a removed record shows in the
  // chain, which names every record).
  for (const [leaf, signature] of signed.leaves) {
    if (!newLeaf(leaf)) continue;
    if (!index.records.has(signature.subject) && !attested.leaves.has(signature.subject))
      ledger.push(
        unverifiable(
          `leaves[${leaf}]`,
          'leaf',
          leaf,
          `signature ${leaf} signs ${signature.subject}, which is not in the ledger: ignored`,
        ),
      );
  }
  for (const [leaf, attestation] of attested.leaves) {
    if (!index.records.has(attestation.subject))
      ledger.push(
        unverifiable(
          `leaves[${leaf}]`,
          'leaf',
          leaf,
          `attestation ${leaf} is about ${attestation.subject}, which is not in the ledger: ignored`,
        ),
      );
  }
  if (index.tipCommit === undefined && options.ids === undefined)
    ledger.push(
      unverifiable(
        'records',
        'ledger',
        LOG_REF,
        `${LOG_REF} does not exist: there are no records, so nothing was verified`,
      ),
    );
  let ids: readonly string[] = options.ids ?? [...index.records.keys()];
  if (incremental) {
    // A new signature or attestation can change the verdict of an old record: check it again.
    const again = new Set(incremental.records);
    for (const id of incremental.signatures.keys()) {
      const subject = signed.leaves.get(id)?.subject;
      if (subject !== undefined && index.records.has(subject)) again.add(subject);
    }
    for (const attestation of attested.leaves.values())
      if (index.records.has(attestation.subject)) again.add(attestation.subject);
    // Checked again only for a leaf: no new entry names it, and an entry of the verified tip
    // named it once (checked then); counted as such, not as a record no entry names.
    for (const id of again)
      if (!recordsInLog.has(id) && incremental.heldBefore(id)) recordsInLog.set(id, 1);
    ids = [...again];
  }
  const records: RecordReport[] = new Array<RecordReport>(ids.length);
  const texts = new Map<string, string>();
  const intern = (text: string) => {
    const known = texts.get(text);
    if (known !== undefined) return known;
    if (texts.size < 100_000) texts.set(text, text);
    return text;
  };
  const signatures = bySubject(signed.leaves);
  const tasks: RecordTask[] = ids.map((id) => ({
    id,
    tree: index.records.get(id),
    logged: recordsInLog.get(id) ?? 0,
    signatures: signatures.get(id) ?? [],
    ...(options.attested?.has(id) ? { attestations: options.attested.get(id)! } : {}),
    ...(options.lapsed?.has(id) ? { lapsed: options.lapsed.get(id)! } : {}),
  }));
  const recordOptions: RecordCheckOptions = {
    ...(options.rerun === undefined ? {} : { rerun: options.rerun }),
    ...(options.trust === undefined ? {} : { trust: options.trust }),
    now: options.now ?? new Date(),
    ...(options.root === undefined ? {} : { root: options.root }),
    ...(options.formatOptions === undefined ? {} : { formatOptions: options.formatOptions }),
    ...(options.shallow === undefined ? {} : { shallow: options.shallow }),
    ...(options.keepVerified === undefined ? {} : { keepVerified: options.keepVerified }),
  };
  const keep = (k: number, checked: CheckedRecord) => {
    const id = ids[k]!;
    if (checked.about !== undefined && checked.record !== undefined)
      options.onRecord?.(id, checked.record);
    if (checked.baseCommit !== undefined) options.onBaseCommit?.(checked.baseCommit);
    // What is kept is mostly the same few findings on every record: one copy of each text.
    const checks =
      options.keepVerified === false
        ? checked.checks.map((c) => ({
            ...c,
            id: intern(c.id),
            check: intern(c.check),
            detail: intern(c.detail),
          }))
        : checked.checks;
    records[k] = {
      id,
      checks,
      ...(checked.verified === undefined ? {} : { verified: checked.verified }),
      ...checked.about,
    };
  };
  const workers = options.rerun
    ? 1
    : Math.min(
        options.workers ?? 1,
        Math.ceil(tasks.length / Math.max(1, options.recordsPerWorker ?? RECORDS_PER_WORKER)),
      );
  if (workers > 1 && canCheckInWorkers()) {
    await checkRecordsInWorkers(store, tasks, recordOptions, {
      workers,
      keepRecords: options.onRecord !== undefined,
      onChecked: keep,
    });
  } else {
    // Several records in flight: each waits on object reads through one cat-file pipe, so
    // their reads queue there while this thread decodes and checks another. Reports keep the
    // order of `ids`.
    // With re-runs, as many as the re-runner may run at once (`rerunJobs`, default 1).
    const width = Math.min(
      options.rerun ? Math.max(1, Math.floor(options.rerunJobs ?? 1)) : RECORDS_IN_FLIGHT,
      tasks.length,
    );
    let next = 0;
    let done = 0;
    // Read ahead a window at a time: the store's tree cache and read-ahead budget hold one.
    let ahead = 0;
    let reading: Promise<void> = Promise.resolve();
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next < tasks.length) {
          options.signal?.throwIfAborted();
          const k = next++;
          if (k >= ahead) {
            const window = tasks.slice(ahead, ahead + PREFETCH_WINDOW);
            ahead += PREFETCH_WINDOW;
            reading = prefetchRecords(
              store,
              window.flatMap((t) => (t.tree ? [t.tree] : [])),
            );
          }
          await reading;
          keep(
            k,
            await checkRecord(store, tasks[k]!, recordOptions, options.onRecord !== undefined),
          );
          options.onRecordDone?.(++done, tasks.length, ids[k]!);
        }
      }),
    );
  }
  const ledgerChecks = identifyChecks(ledger);
  const exitCode = exitCodeOf(
    [...ledgerChecks, ...records.flatMap((r) => r.checks)],
    options.strict ?? false,
  );
  return {
    ok: exitCode === 0,
    exitCode,
    ledger: ledgerChecks,
    records,
    ...(plan === undefined || options.since === undefined
      ? {}
      : {
          since: plan.descends
            ? {
                used: true,
                commit: options.since.tipCommit ?? null,
                entry: options.since.tipEntry ?? null,
                newEntries: plan.entries.size,
              }
            : {
                used: false,
                commit: options.since.tipCommit ?? null,
                entry: options.since.tipEntry ?? null,
                reason: plan.reason,
              },
        }),
  };
}

/** 3 when an integrity check failed, 1 when a claim was contradicted (or, strict, unverifiable). */
export function exitCodeOf(all: readonly CheckDraft[], strict: boolean): 0 | 1 | 3 {
  const integrity = all.some((c) => c.integrity && c.verdict !== 'verified');
  const contradicted = all.some((c) => c.verdict === 'contradicted');
  const unverifiable = all.some((c) => c.verdict === 'unverifiable');
  return integrity ? 3 : contradicted || (strict && unverifiable) ? 1 : 0;
}
