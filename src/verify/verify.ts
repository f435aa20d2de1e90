/**
 * `verify`: recompute everything a record asserts, through the store port only. Integrity
 * checks cover what `ledger` itself wrote (ids, canonical bytes, the chain, observations
 * against the stored objects); claim checks cover what the agent asserted.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:os';
import { decodeCanonical, toRecordId } from '../canonical/index.js';
import {
  BASE_COMMIT_FILE,
  BASE_TREE,
  CANDIDATE_TREE,
  EVIDENCE_DIR,
  RECORD_FILE,
} from '../ledger/layout.js';
import type { LedgerIndex } from '../ledger/read.js';
import { readEntry } from '../ledger/read.js';
import { lookupPath } from '../ledger/trees.js';
import { isLedgerError } from '../model/errors.js';
import { Record as RecordSchema, type LedgerRecord, type LogEntry } from '../model/record.js';
import {
  EMPTY_TREE,
  hashObject,
  MODE,
  parseCommit,
  parseTree,
  type TreeEntry,
} from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import { bySubject, readAttestations, readSignatures } from '../ledger/leaves.js';
import type { SignatureObject } from '../model/attestation.js';
import { checkClaims } from './claims.js';
import { checkSignatures, type Trust } from './signatures.js';
import type { Check, RecordReport, Rerunner, VerifyReport } from './types.js';

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
}

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = constants.signals;

/** Records dated further than this after the verify time, or before their base commit, are flagged. */
const CLOCK_SKEW_MS = 24 * 60 * 60 * 1000;

interface RecordContext extends VerifyOptions {
  signatures: Map<string, SignatureObject[]>;
}

export async function verifyLedger(
  store: ObjectReader,
  index: LedgerIndex,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const ledger: Check[] = [];
  const entries = await checkChain(
    store,
    options.chain === false ? { ...index, tipCommit: undefined } : index,
    ledger,
  );
  const recordsInLog = new Map<string, number>();
  for (const entry of entries.values()) {
    if (entry.record !== null)
      recordsInLog.set(entry.record, (recordsInLog.get(entry.record) ?? 0) + 1);
  }
  const signed = await readSignatures(store, index);
  const attested = await readAttestations(store, index);
  for (const damaged of [...signed.damaged, ...attested.damaged])
    ledger.push(fail('leaf', damaged.id, damaged.problem, true));
  for (const [leaf, signature] of signed.leaves) {
    if (!index.records.has(signature.subject) && !attested.leaves.has(signature.subject)) {
      ledger.push(
        fail(
          'leaf',
          leaf,
          `signature ${leaf} signs ${signature.subject}, which is not in the ledger`,
          true,
        ),
      );
    }
  }
  for (const [leaf, attestation] of attested.leaves) {
    if (!index.records.has(attestation.subject)) {
      ledger.push(
        fail(
          'leaf',
          leaf,
          `attestation ${leaf} is about ${attestation.subject}, which is not in the ledger`,
          true,
        ),
      );
    }
  }
  const context: RecordContext = { ...options, signatures: bySubject(signed.leaves) };
  const ids = options.ids ?? [...index.records.keys()];
  const records: RecordReport[] = [];
  for (const id of ids) {
    const checks: Check[] = [];
    const tree = index.records.get(id);
    if (tree === undefined) {
      checks.push(fail('record', id, `record ${id} is not in the ledger`, true));
    } else {
      const logged = recordsInLog.get(id) ?? 0;
      checks.push(
        logged === 1
          ? pass('chain', id, 'the log names this record once')
          : fail('chain', id, `the log names this record ${logged} times; expected once`, true),
      );
      try {
        await verifyRecord(store, id, tree, context, checks);
      } catch (error) {
        // A stored object under this record that does not even parse (a malformed tree, a
        // commit without a tree) is damaged ledger data: an integrity verdict naming the record.
        if (!isLedgerError(error) || error.exitCode !== 3) throw error;
        checks.push(
          fail('record', id, `the record's stored objects are damaged: ${error.message}`, true),
        );
      }
    }
    records.push({ id, checks });
  }
  const exitCode = exitCodeOf(
    [...ledger, ...records.flatMap((r) => r.checks)],
    options.strict ?? false,
  );
  return { ok: exitCode === 0, exitCode, ledger, records };
}

/**
 * An exit as a shell reports it (`$?`): the exit code, or 128 + n for signal n. A sandbox
 * reports a command killed by a signal that way, so a witness killed by SIGTERM at record time
 * and one that exits 143 in a re-run are the same outcome.
 */
function shellStatus(exitCode: number | null, signal: string | null): number | null {
  if (exitCode !== null) return exitCode;
  const number = signal === null ? undefined : SIGNAL_NUMBERS[signal];
  return number === undefined ? null : 128 + number;
}

/** 3 when an integrity check failed, 1 when a claim was contradicted (or, strict, unverifiable). */
export function exitCodeOf(all: readonly Check[], strict: boolean): 0 | 1 | 3 {
  const integrity = all.some((c) => c.integrity && c.verdict !== 'verified');
  const contradicted = all.some((c) => c.verdict === 'contradicted');
  const unverifiable = all.some((c) => c.verdict === 'unverifiable');
  return integrity ? 3 : contradicted || (strict && unverifiable) ? 1 : 0;
}

function pass(check: string, subject: string, detail: string, integrity = false): Check {
  return { check, subject, verdict: 'verified', detail, ...(integrity ? { integrity } : {}) };
}

function fail(check: string, subject: string, detail: string, integrity = false): Check {
  return { check, subject, verdict: 'contradicted', detail, ...(integrity ? { integrity } : {}) };
}

/** The log: every entry hashes to its id and decodes; every `prev` exists; heights add up;
 * every entry is reachable from the tip; every record is named by the log. */
async function checkChain(
  store: ObjectReader,
  index: LedgerIndex,
  out: Check[],
): Promise<Map<string, LogEntry>> {
  const entries = new Map<string, LogEntry>();
  let damaged = false;
  for (const [id, blob] of index.entries) {
    try {
      entries.set(id, (await readEntry(store, id, blob)).entry);
    } catch (error) {
      damaged = true;
      out.push(fail('chain', id, isLedgerError(error) ? error.message : String(error), true));
    }
  }
  if (index.tipCommit === undefined) return entries;
  if (index.tipEntry === undefined || !entries.has(index.tipEntry)) {
    out.push(
      fail(
        'chain',
        'tip',
        `the ledger tip names log entry ${index.tipEntry ?? '(none)'}, which is not in the log`,
        true,
      ),
    );
    return entries;
  }
  for (const [id, entry] of entries) {
    let height = 0;
    for (const prev of entry.prev) {
      const before = entries.get(prev);
      if (!before) {
        if (index.entries.has(prev)) continue; // already reported as damaged
        damaged = true;
        out.push(
          fail(
            'chain',
            id,
            `log entry ${id} follows ${prev}, which is missing: the log has a hole`,
            true,
          ),
        );
      } else {
        height = Math.max(height, before.height);
      }
    }
    if (entry.prev.every((p) => entries.has(p)) && entry.height !== height + 1) {
      damaged = true;
      out.push(
        fail(
          'chain',
          id,
          `log entry ${id} has height ${entry.height}; expected ${height + 1}`,
          true,
        ),
      );
    }
    if (entry.record !== null && !index.records.has(entry.record)) {
      damaged = true;
      out.push(
        fail(
          'chain',
          id,
          `log entry ${id} names record ${entry.record}, which is missing from the ledger`,
          true,
        ),
      );
    }
  }
  const reachable = new Set<string>();
  const stack = [index.tipEntry];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (reachable.has(id)) continue;
    reachable.add(id);
    for (const prev of entries.get(id)?.prev ?? []) stack.push(prev);
  }
  for (const id of entries.keys()) {
    if (!reachable.has(id)) {
      damaged = true;
      out.push(fail('chain', id, `log entry ${id} is not reachable from the tip`, true));
    }
  }
  const named = new Set([...entries.values()].map((e) => e.record));
  for (const id of index.records.keys()) {
    if (!named.has(id)) {
      damaged = true;
      out.push(
        fail('chain', id, `record ${id} is in the ledger tree but no log entry names it`, true),
      );
    }
  }
  if (!damaged)
    out.push(pass('chain', 'ledger', `${entries.size} log entries chain from the tip`, true));
  return entries;
}

async function verifyRecord(
  store: ObjectReader,
  id: string,
  recordTree: string,
  options: RecordContext,
  checks: Check[],
): Promise<void> {
  const treeObject = await store.read(recordTree);
  if (!treeObject || treeObject.type !== 'tree') {
    checks.push(fail('id', id, `the record's tree ${recordTree} is missing`, true));
    return;
  }
  const files = new Map<string, TreeEntry>(
    parseTree(treeObject.bytes, recordTree).map((e) => [e.name, e]),
  );
  const blob = files.get(RECORD_FILE);
  const bytes = blob ? (await store.read(blob.oid))?.bytes : undefined;
  if (!bytes) {
    checks.push(fail('id', id, 'the record blob is missing', true));
    return;
  }
  const actual = toRecordId(bytes);
  if (actual !== id) {
    checks.push(fail('id', id, `the stored bytes hash to ${actual}, not to the record's id`, true));
    return;
  }
  checks.push(pass('id', id, 'sha256 of the stored bytes is the id', true));
  let value: unknown;
  try {
    value = decodeCanonical(bytes);
  } catch (error) {
    checks.push(fail('canonical', id, `not canonical CBOR: ${(error as Error).message}`, true));
    return;
  }
  const parsed = RecordSchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    checks.push(
      fail(
        'schema',
        id,
        `does not match ${schemaName(value)}: ${first?.path.join('.')}: ${first?.message}`,
        true,
      ),
    );
    return;
  }
  const record: LedgerRecord = parsed.data;
  checks.push(pass('canonical', id, `canonical CBOR of a ${record.schema}`, true));
  await checkAnchors(store, record, files, checks);
  await checkArtifacts(store, record, checks);
  await checkEvidence(store, record, files, checks);
  await checkWitnesses(id, record, options, checks);
  await checkClaims(store, record, options, id, checks);
  checkSignatures(
    id,
    record.observed.producer,
    options.signatures.get(id) ?? [],
    options.trust,
    checks,
  );
  await checkClock(store, record, options.now ?? new Date(), checks);
}

/** The schema a stored value claims to follow, for a message about why it does not. */
function schemaName(value: unknown): string {
  const schema = (value as { schema?: unknown } | null)?.schema;
  return typeof schema === 'string' && /^ledger\.record\/v\d+$/.test(schema)
    ? schema
    : 'any ledger.record schema';
}

/**
 * `recordedAt` comes from the recording machine's clock. Nothing orders by it (the log height
 * does), but a record dated after the verify time or before its own base commit says the clock
 * was wrong or the record was made by hand: flagged, never trusted.
 */
async function checkClock(store: ObjectReader, record: LedgerRecord, now: Date, checks: Check[]) {
  const at = Date.parse(record.observed.recordedAt);
  const baseObject =
    record.observed.base.commit === null
      ? undefined
      : await store.read(record.observed.base.commit);
  const committer =
    baseObject?.type === 'commit'
      ? /^committer .* (\d{1,15}) [+-]\d{4}$/m.exec(
          Buffer.from(baseObject.bytes).toString('utf8').split('\n\n')[0] ?? '',
        )
      : null;
  const baseTime = committer?.[1] === undefined ? undefined : Number(committer[1]) * 1000;
  if (at > now.getTime() + CLOCK_SKEW_MS) {
    checks.push({
      check: 'clock',
      subject: record.observed.recordedAt,
      verdict: 'unverifiable',
      detail: `recorded ${Math.round((at - now.getTime()) / 86_400_000)} day(s) after the verify time: the recording clock was wrong, or the record was not made by ledger`,
    });
  } else if (baseTime !== undefined && at < baseTime - CLOCK_SKEW_MS) {
    checks.push({
      check: 'clock',
      subject: record.observed.recordedAt,
      verdict: 'unverifiable',
      detail: `recorded ${Math.round((baseTime - at) / 86_400_000)} day(s) before its base commit was made: one of the two clocks was wrong`,
    });
  }
}

async function checkAnchors(
  store: ObjectReader,
  record: LedgerRecord,
  files: Map<string, TreeEntry>,
  checks: Check[],
) {
  const { base, candidate } = record.observed;
  const baseCommit = files.get(BASE_COMMIT_FILE);
  const raw = baseCommit ? (await store.read(baseCommit.oid))?.bytes : undefined;
  if (base.commit === null) {
    // A record made before the repository's first commit: its base is the empty tree.
    checks.push(
      base.tree === EMPTY_TREE && files.get(BASE_TREE)?.oid === EMPTY_TREE && !baseCommit
        ? pass('anchor', 'base', 'no base commit: the empty tree', true)
        : fail(
            'anchor',
            'base',
            'a record without a base commit must have the empty tree as its base',
            true,
          ),
    );
  } else if (!raw) {
    checks.push(fail('anchor', 'base', 'the base commit bytes are missing', true));
  } else if (hashObject('commit', raw) !== base.commit) {
    checks.push(
      fail('anchor', 'base', `the stored base commit does not hash to ${base.commit}`, true),
    );
  } else if (parseCommit(raw).tree !== base.tree || files.get(BASE_TREE)?.oid !== base.tree) {
    checks.push(fail('anchor', 'base', `the base tree does not match commit ${base.commit}`, true));
  } else {
    checks.push(
      pass(
        'anchor',
        'base',
        `base commit ${base.commit.slice(0, 12)} with tree ${base.tree.slice(0, 12)}`,
        true,
      ),
    );
  }
  const cand = files.get(CANDIDATE_TREE);
  const candObject = cand ? await store.read(cand.oid) : undefined;
  if (
    !cand ||
    cand.oid !== candidate.tree ||
    cand.mode !== MODE.tree ||
    candObject?.type !== 'tree'
  ) {
    checks.push(
      fail(
        'anchor',
        'candidate',
        `the candidate tree ${candidate.tree} is not the one stored`,
        true,
      ),
    );
  } else {
    checks.push(
      pass('anchor', 'candidate', `candidate tree ${candidate.tree.slice(0, 12)} is stored`, true),
    );
  }
}

async function checkArtifacts(store: ObjectReader, record: LedgerRecord, checks: Check[]) {
  for (const artifact of record.observed.artifacts) {
    const entry = await lookupPath(store, record.observed.candidate.tree, artifact.path);
    const object = entry ? await store.read(entry.oid) : undefined;
    if (!entry || !object) {
      checks.push(fail('artifact', artifact.path, 'not found in the candidate tree', true));
      continue;
    }
    const sha256 = createHash('sha256').update(object.bytes).digest('hex');
    if (
      entry.oid !== artifact.blob ||
      sha256 !== artifact.sha256 ||
      object.bytes.length !== artifact.size
    ) {
      checks.push(
        fail(
          'artifact',
          artifact.path,
          `expected sha256 ${artifact.sha256} (${artifact.size} bytes), got ${sha256} (${object.bytes.length} bytes)`,
          true,
        ),
      );
    } else {
      checks.push(
        pass(
          'artifact',
          artifact.path,
          `sha256 ${sha256.slice(0, 16)}… ${artifact.size} bytes`,
          true,
        ),
      );
    }
  }
}

async function checkEvidence(
  store: ObjectReader,
  record: LedgerRecord,
  files: Map<string, TreeEntry>,
  checks: Check[],
) {
  const kept = [
    ...record.observed.witnesses.flatMap((w) => [
      ...(w.stdout ? [{ name: `${w.command} (stdout)`, file: w.stdout }] : []),
      ...(w.stderr ? [{ name: `${w.command} (stderr)`, file: w.stderr }] : []),
    ]),
    ...record.observed.evidence,
    ...(record.observed.source ? [{ name: 'source', file: record.observed.source }] : []),
  ];
  if (kept.length === 0) return;
  const dir = files.get(EVIDENCE_DIR);
  const listed = new Map<string, string>();
  if (dir) {
    const object = await store.read(dir.oid);
    if (object?.type === 'tree')
      for (const e of parseTree(object.bytes, dir.oid)) listed.set(e.name, e.oid);
  }
  let bad = 0;
  for (const { name, file } of kept) {
    const object = listed.get(file.sha256) === file.blob ? await store.read(file.blob) : undefined;
    const sha256 = object ? createHash('sha256').update(object.bytes).digest('hex') : undefined;
    if (sha256 !== file.sha256) {
      bad++;
      checks.push(
        fail(
          'evidence',
          name,
          object
            ? `kept bytes hash to ${sha256}, expected ${file.sha256}`
            : 'the kept bytes are missing',
          true,
        ),
      );
    }
  }
  if (bad === 0)
    checks.push(
      pass(
        'evidence',
        'kept files',
        `${kept.length} evidence file(s) hash to their recorded digests`,
        true,
      ),
    );
}

async function checkWitnesses(
  id: string,
  record: LedgerRecord,
  options: VerifyOptions,
  checks: Check[],
) {
  for (const witness of record.observed.witnesses) {
    const recorded = witness.timedOut ? 'timed out' : `exit ${witness.exitCode ?? witness.signal}`;
    if (!options.rerun) {
      checks.push({
        check: 'witness',
        subject: witness.command,
        verdict: 'unverifiable',
        detail: `recorded ${recorded}; not re-run (use --rerun)`,
      });
      continue;
    }
    const outcome = await options.rerun({
      recordId: id,
      command: witness.command,
      candidateTree: record.observed.candidate.tree,
      origin: 'witness',
    });
    if (!outcome.ran) {
      checks.push({
        check: 'witness',
        subject: witness.command,
        verdict: 'unverifiable',
        detail: `recorded ${recorded}; ${outcome.reason}`,
        ...(outcome.output ? { rerun: outcome.output } : {}),
      });
      continue;
    }
    const now = outcome.result.timedOut ? 'timed out' : `exit ${outcome.result.exitCode}`;
    const same =
      outcome.result.timedOut === witness.timedOut &&
      (witness.timedOut ||
        shellStatus(outcome.result.exitCode, outcome.result.signal ?? null) ===
          shellStatus(witness.exitCode, witness.signal));
    const check = same
      ? pass('witness', witness.command, `re-run: ${now}, as recorded`)
      : fail('witness', witness.command, `recorded ${recorded}, re-run gave ${now}`);
    checks.push(outcome.result.output ? { ...check, rerun: outcome.result.output } : check);
  }
}
