/**
 * `verify`: recompute everything a record asserts, through the store port only. Integrity
 * checks cover what `ledger` itself wrote (ids, canonical bytes, the chain, observations
 * against the stored objects, the effective status re-derived from what the record kept);
 * claim checks cover what the agent asserted. Every check has an id unique within its record.
 */
import type { FormatOptions } from '../formats/index.js';
import { decodeCanonical } from '../canonical/index.js';
import { LOG_REF, RECORD_FILE } from '../ledger/layout.js';
import type { LedgerIndex } from '../ledger/read.js';
// The same cap as every other command's record reader: what verify decodes, they decode.
import { MAX_RECORD_BYTES } from '../ledger/records.js';
import { bySubject, readAttestations, readSignatures } from '../ledger/leaves.js';
import { isLedgerError } from '../model/errors.js';
import { Record as RecordSchema, type LedgerRecord } from '../model/record.js';
import { parseTree, type TreeEntry } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import { readCapped } from './blobs.js';
import { checkChain } from './chain.js';
import { checkChainSince, type SincePlan } from './since.js';
import { fail, identifyChecks, pass, unverifiable } from './checks.js';
import { checkClaims } from './claims.js';
import { checkDerivedStatus } from './derived.js';
import {
  checkAnchors,
  checkArtifacts,
  checkBaseInRepository,
  checkClock,
  checkEvidence,
} from './observed.js';
import {
  checkSignatures,
  type SignatureLeaf,
  type SignatureVerdict,
  type Trust,
} from './signatures.js';
import type { Check, CheckDraft, RecordReport, Rerunner, VerifyReport } from './types.js';
import { checkWitnesses } from './witnesses.js';

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
   * Trust material from the auditor's policy (allowed_signers, roles, whether signatures are
   * required). Without it signatures are still checked cryptographically and reported, but a
   * producer is never `verified`.
   */
  trust?: Trust;
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
  since?: LedgerIndex;
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
  /** Called with every record whose blob decoded (verify's text names each by task and summary). */
  onRecord?: (id: string, record: LedgerRecord) => void;
  /**
   * With `rerun`: how many records are verified at once (default 1, one after another). The
   * re-runner bounds how many commands run at once; this only lets them be asked for together.
   */
  rerunJobs?: number;
  /** Called as each record's verdicts are in: how many are done of how many (re-run progress). */
  onRecordDone?: (done: number, total: number, id: string) => void;
}

/** How much of a record's summary a report keeps, to name the record to a person. */
const SUMMARY_CHARS = 160;

/** Records verified concurrently (their object reads pipelined through the store). */
const RECORDS_IN_FLIGHT = 8;

interface RecordContext extends VerifyOptions {
  signatures: Map<string, SignatureLeaf[]>;
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
    const entries = await checkChain(
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
    incremental ? { ...index, attestations: incremental.attestations } : index,
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
  // What a person needs to tell records apart: when, which task, what it says it did.
  const seen = new Map<string, Pick<RecordReport, 'recordedAt' | 'task' | 'summary'>>();
  const context: RecordContext = {
    ...options,
    signatures: bySubject(signed.leaves),
    onRecord: (id, record) => {
      seen.set(id, {
        recordedAt: record.observed.recordedAt,
        ...(record.claims.task === undefined ? {} : { task: record.claims.task }),
        // A line's worth: a 100,000-record verify keeps one per record.
        ...(record.claims.summary === undefined
          ? {}
          : { summary: [...record.claims.summary].slice(0, SUMMARY_CHARS).join('') }),
      });
      options.onRecord?.(id, record);
    },
  };
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
  const verifyOne = async (id: string): Promise<RecordReport> => {
    const drafts: CheckDraft[] = [];
    const tree = index.records.get(id);
    if (tree === undefined) {
      drafts.push(fail('record', 'record', id, `record ${id} is not in the ledger`, true));
    } else {
      const logged = recordsInLog.get(id) ?? 0;
      drafts.push(
        logged === 1
          ? pass('chain', 'chain', id, 'the log names this record once')
          : fail(
              'chain',
              'chain',
              id,
              `the log names this record ${logged} times; expected once`,
              true,
            ),
      );
      try {
        await verifyRecord(store, id, tree, context, drafts);
      } catch (error) {
        // Damaged objects under this record (a tree that is a 2 GiB blob, a pack git cannot
        // inflate): the record's integrity verdict, naming it, rather than the end of the run.
        if (!isLedgerError(error)) throw error;
        drafts.push(
          fail(
            'record',
            'record',
            id,
            `reading the record's objects failed: ${error.message}`,
            true,
          ),
        );
      }
    }
    const checks = identifyChecks(drafts);
    const about = seen.get(id);
    if (options.keepVerified === false) {
      // What is kept is mostly the same few findings on every record: one copy of each text.
      const kept = checks
        .filter((c) => c.verdict !== 'verified')
        .map((c) => ({ ...c, id: intern(c.id), check: intern(c.check), detail: intern(c.detail) }));
      return { id, checks: kept, verified: checks.length - kept.length, ...about };
    }
    return { id, checks, ...about };
  };
  // Several records in flight: each waits on object reads through one cat-file pipe, so their
  // reads queue there while this thread decodes and checks another. With re-runs, as many as
  // the re-runner may run at once (`rerunJobs`, default 1). Reports keep the order of `ids`.
  const width = Math.min(
    options.rerun ? Math.max(1, Math.floor(options.rerunJobs ?? 1)) : RECORDS_IN_FLIGHT,
    ids.length,
  );
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < ids.length) {
        const k = next++;
        records[k] = await verifyOne(ids[k]!);
        options.onRecordDone?.(++done, ids.length, ids[k]!);
      }
    }),
  );
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

async function verifyRecord(
  store: ObjectReader,
  id: string,
  recordTree: string,
  options: RecordContext,
  checks: CheckDraft[],
): Promise<void> {
  const treeObject = await store.read(recordTree);
  if (!treeObject || treeObject.type !== 'tree') {
    checks.push(fail('id', 'id', id, `the record's tree ${recordTree} is missing`, true));
    return;
  }
  const files = new Map<string, TreeEntry>(
    parseTree(treeObject.bytes, recordTree).map((e) => [e.name, e]),
  );
  const blob = files.get(RECORD_FILE);
  const read = blob ? await readCapped(store, blob.oid, MAX_RECORD_BYTES) : undefined;
  if (!read) {
    checks.push(fail('id', 'id', id, 'the record blob is missing', true));
    return;
  }
  const actual = `sha256:${read.sha256}`;
  if (actual !== id) {
    checks.push(
      fail('id', 'id', id, `the stored bytes hash to ${actual}, not to the record's id`, true),
    );
    return;
  }
  checks.push(pass('id', 'id', id, 'sha256 of the stored bytes is the id', true));
  if (read.bytes === undefined) {
    checks.push(
      fail(
        'canonical',
        'canonical',
        id,
        `not canonical CBOR: ${read.size} bytes, over the ${MAX_RECORD_BYTES}-byte limit for a record`,
        true,
      ),
    );
    return;
  }
  let value: unknown;
  try {
    value = decodeCanonical(read.bytes);
  } catch (error) {
    checks.push(
      fail('canonical', 'canonical', id, `not canonical CBOR: ${(error as Error).message}`, true),
    );
    return;
  }
  const parsed = RecordSchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    checks.push(
      fail(
        'schema',
        'schema',
        id,
        `does not match ${schemaName(value)}: ${first?.path.join('.')}: ${first?.message}`,
        true,
      ),
    );
    return;
  }
  const record: LedgerRecord = parsed.data;
  options.onRecord?.(id, record);
  checks.push(pass('canonical', 'canonical', id, `canonical CBOR of a ${record.schema}`, true));
  const baseCommitBytes = await checkAnchors(store, record, files, checks);
  await checkBaseInRepository(store, record, checks, options.shallow ?? false);
  if (record.observed.base.commit !== null) options.onBaseCommit?.(record.observed.base.commit);
  await checkArtifacts(store, record, checks);
  const kept = await checkEvidence(store, record, files, checks);
  checkDerivedStatus(record, kept, checks, {
    ...(options.root === undefined ? {} : { fallbackRoot: options.root }),
    ...(options.formatOptions === undefined ? {} : { formatOptions: options.formatOptions }),
  });
  // Signatures are judged before witnesses (a trusted one attests their recorded results) and
  // reported where they always were, after the claims.
  const signatureChecks: Check[] = [];
  const verdicts = checkSignatures(
    id,
    record.observed.producer,
    options.signatures.get(id) ?? [],
    options.trust,
    signatureChecks,
  );
  await checkWitnesses(id, record, options.rerun, checks, attestedBy(verdicts));
  await checkClaims(store, record, options, id, checks);
  checks.push(...signatureChecks);
  checkClock(record, baseCommitBytes, options.now ?? new Date(), checks);
}

/**
 * Who the policy trusts among this record's signers: a producer signature over the record id,
 * or a recorder signature ("recorded on this machine by"). Either says ledger on a trusted
 * machine observed the witnesses, which is what makes their recorded results attested.
 */
function attestedBy(verdicts: readonly SignatureVerdict[]): string | undefined {
  for (const v of verdicts) {
    if (v.verified && v.signer) return v.signer;
    if (typeof v.recorder === 'string') return v.recorder;
  }
  return undefined;
}

/** The schema a stored value claims to follow, for a message about why it does not. */
function schemaName(value: unknown): string {
  const schema = (value as { schema?: unknown } | null)?.schema;
  return typeof schema === 'string' && /^ledger\.record\/v\d+$/.test(schema)
    ? schema
    : 'any ledger.record schema';
}
