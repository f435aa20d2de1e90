/**
 * One record's checks, from its tree id to its verdicts: what `verifyLedger` runs for each
 * record, in this thread or in a worker (`parallel.ts`). Everything here is derived from the
 * bytes the reader returns; the only inputs besides them are the auditor's (trust, policy
 * options, the verify time) and what the chain check derived (how often the log names it).
 */
import type { FormatOptions } from '../model/format-options.js';
import { decodeCanonical } from '../canonical/index.js';
import { RECORD_FILE } from '../ledger/layout.js';
// The same cap as every other command's record reader: what verify decodes, they decode.
import { MAX_RECORD_BYTES } from '../ledger/records.js';
import { isLedgerError } from '../model/errors.js';
import { LIFECYCLE_FORMAT } from '../model/vocabulary.js';
import type { LedgerRecord } from '../model/record.js';
import { parseRecord } from '../model/record-check.js';
import { recordSchemas } from '../model/schemas.js';
import { parseTree, type TreeEntry } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import {
  applyAttestations,
  lapsedContradictions,
  rerunChecksOf,
  settledByAttestation,
  withoutSettledReruns,
  type TrustedAttestation,
} from './attested.js';
import { BlobReads, readCapped } from './blobs.js';
import { fail, identifyChecks, pass } from './checks.js';
import { checkClaims } from './claims.js';
import { checkDerivedStatus } from './derived.js';
import { rulesFor } from './format-rules.js';
import {
  checkAnchors,
  checkArtifacts,
  checkBaseInRepository,
  checkClock,
  checkEvidence,
} from './observed.js';
import { attestedBy, checkSignatures, type SignatureLeaf, type Trust } from './signatures.js';
import type { Check, CheckDraft, RecordReport, Rerunner } from './types.js';
import { checkWitnesses } from './witnesses.js';

/** What a record's checks take from `VerifyOptions` (all of it structured-cloneable but `rerun`). */
export interface RecordCheckOptions {
  rerun?: Rerunner;
  trust?: Trust;
  now?: Date;
  root?: string;
  formatOptions?: FormatOptions;
  shallow?: boolean;
  keepVerified?: boolean;
}

/** One record to check: its id and tree as the ledger index names them. */
export interface RecordTask {
  id: string;
  /** The record's tree; undefined when the index does not hold the id. */
  tree: string | undefined;
  /** How many log entries name the record (the chain check's count). */
  logged: number;
  /** The signature leaves whose subject is this record. */
  signatures: readonly SignatureLeaf[];
  /** `--from-attestation`: the trusted attestations about this record (attested.ts). */
  attestations?: readonly TrustedAttestation[];
  /** `--from-attestation`: those whose auditor's key has lapsed since (not used; findings). */
  lapsed?: readonly TrustedAttestation[];
}

export interface CheckedRecord {
  /** Identified checks; with `keepVerified: false` only those that did not verify. */
  checks: Check[];
  /** With `keepVerified: false`: how many verified checks were counted and left out. */
  verified?: number;
  /** When the record decoded: what names it to a person. */
  about?: Pick<RecordReport, 'recordedAt' | 'task' | 'summary'>;
  /** When the record decoded and names a base commit. */
  baseCommit?: string;
  /** The decoded record, when the caller asked for it. */
  record?: LedgerRecord;
}

/** How much of a record's summary a report keeps, to name the record to a person. */
const SUMMARY_CHARS = 160;

export async function checkRecord(
  store: ObjectReader,
  task: RecordTask,
  options: RecordCheckOptions,
  keepRecord = false,
): Promise<CheckedRecord> {
  const { id, tree } = task;
  const out: Omit<CheckedRecord, 'checks'> = {};
  const drafts: CheckDraft[] = [];
  if (tree === undefined) {
    drafts.push(fail('record', 'record', id, `record ${id} is not in the ledger`, true));
  } else {
    drafts.push(
      task.logged === 1
        ? pass('chain', 'chain', id, 'the log names this record once')
        : fail(
            'chain',
            'chain',
            id,
            `the log names this record ${task.logged} times; expected once`,
            true,
          ),
    );
    try {
      await verifyRecord(
        store,
        task,
        options,
        drafts,
        (record) => {
          out.about = {
            recordedAt: record.observed.recordedAt,
            ...(record.claims.task === undefined ? {} : { task: record.claims.task }),
            // A line's worth: a 100,000-record verify keeps one per record.
            ...(record.claims.summary === undefined
              ? {}
              : { summary: [...record.claims.summary].slice(0, SUMMARY_CHARS).join('') }),
          };
          if (keepRecord) out.record = record;
        },
        (commit) => (out.baseCommit = commit),
      );
    } catch (error) {
      // Damaged objects under this record (a tree that is a 2 GiB blob, a pack git cannot
      // inflate): the record's integrity verdict, naming it, rather than the end of the run.
      // A bug of ours (INTERNAL, as a worker's reader reports one) is never a finding: exit 4.
      if (!isLedgerError(error) || error.code === 'INTERNAL') throw error;
      drafts.push(
        fail('record', 'record', id, `reading the record's objects failed: ${error.message}`, true),
      );
    }
  }
  // Attested verdicts replace checks before any verified one is counted and dropped: a
  // witness verified only by the producer's signature is what an attested failure overrules.
  const attested = applyAttestations(identifyChecks(drafts), task.attestations ?? []);
  const checks =
    task.lapsed === undefined
      ? attested
      : [...attested, ...lapsedContradictions(attested, task.lapsed)];
  if (options.keepVerified === false) {
    const kept = checks.filter((c) => c.verdict !== 'verified');
    return { ...out, checks: kept, verified: checks.length - kept.length };
  }
  return { ...out, checks };
}

async function verifyRecord(
  store: ObjectReader,
  task: RecordTask,
  options: RecordCheckOptions,
  checks: CheckDraft[],
  onRecord: (record: LedgerRecord) => void,
  onBaseCommit: (commit: string) => void,
): Promise<void> {
  const { id, tree: recordTree } = task;
  const treeObject = await store.read(recordTree!);
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
  // A record the zod-free check accepts is used as is; zod is loaded, by the first record that
  // check does not accept, only to judge it (issue 21): a refusal and its message are zod's.
  let record: LedgerRecord | undefined = parseRecord(value);
  if (record === undefined) {
    const parsed = (await recordSchemas()).Record.safeParse(value);
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
    record = parsed.data;
  }
  onRecord(record);
  checks.push(pass('canonical', 'canonical', id, `canonical CBOR of a ${record.schema}`, true));
  const baseCommitBytes = await checkAnchors(store, record, files, checks);
  await checkBaseInRepository(store, record, checks, options.shallow ?? false);
  if (record.observed.base.commit !== null) onBaseCommit(record.observed.base.commit);
  // Each blob streamed once for the record: the artifacts' digests and the references' lines.
  const blobs = new BlobReads(store);
  await checkArtifacts(store, record, checks, blobs);
  const kept = await checkEvidence(store, record, files, checks);
  const rulesOf = await rulesFor(record, kept);
  const rederived = checkDerivedStatus(record, kept, rulesOf, checks, {
    ...(options.root === undefined ? {} : { fallbackRoot: options.root }),
    ...(options.formatOptions === undefined ? {} : { formatOptions: options.formatOptions }),
  });
  // Signatures are judged before witnesses (a trusted one attests their recorded results) and
  // reported where they always were, after the claims.
  const signatureChecks: Check[] = [];
  const verdicts = checkSignatures(
    id,
    record.observed.producer,
    task.signatures,
    options.trust,
    signatureChecks,
    isStepShaped(record),
  );
  // --rerun --from-attestation: what a trusted auditor's re-run settled is not re-run here.
  const rerun =
    options.rerun && task.attestations !== undefined && task.attestations.length > 0
      ? withoutSettledReruns(
          options.rerun,
          settledByAttestation(rerunChecksOf(record), task.attestations),
        )
      : options.rerun;
  await checkWitnesses(id, record, rerun, checks, attestedBy(verdicts, record.observed.producer));
  await checkClaims(store, record, rulesOf(record), { rerun }, id, checks, blobs, rederived);
  checks.push(...signatureChecks);
  checkClock(record, baseCommitBytes, options.now ?? new Date(), checks);
}

/**
 * Whether `record` has a lifecycle step's shape: of the lifecycle kind or KXM (steps before it),
 * made without a handoff file, linking to the record it acts on. As src/app/lifecycle-steps.ts
 * reads it, inlined so that verifying a record loads no lifecycle code.
 */
function isStepShaped(record: LedgerRecord): boolean {
  const link = record.claims.extra?.['lifecycle'];
  return (
    (record.format === LIFECYCLE_FORMAT || record.format === 'kxm') &&
    record.observed.source === undefined &&
    typeof link === 'object' &&
    link !== null &&
    !Array.isArray(link) &&
    typeof (link as Record<string, unknown>)['of'] === 'string'
  );
}

/** The schema a stored value claims to follow, for a message about why it does not. */
function schemaName(value: unknown): string {
  const schema = (value as { schema?: unknown } | null)?.schema;
  return typeof schema === 'string' && /^ledger\.record\/v\d+$/.test(schema)
    ? schema
    : 'any ledger.record schema';
}
