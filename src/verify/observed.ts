/**
 * Checks of the observed half against the objects the record stored: anchors recomputed from
 * the base commit's bytes, artifact digests and sizes from the candidate tree, kept evidence
 * from its blobs. All integrity checks (exit 3): `ledger` wrote these, so a difference is
 * tampering or damage. Large blobs are streamed (./blobs.ts), never read whole.
 */
import { BASE_COMMIT_FILE, BASE_TREE, CANDIDATE_TREE, EVIDENCE_DIR } from '../ledger/layout.js';
import { lookupPath } from '../ledger/trees.js';
import type { Evidence, LedgerRecord } from '../model/record.js';
import type { KeptInputs } from '../record/derive.js';
import {
  EMPTY_TREE,
  hashObject,
  MODE,
  parseCommit,
  parseTree,
  type TreeEntry,
} from '../store/objects.js';
import { MAX_WHOLE_OBJECT_BYTES, type ObjectReader } from '../store/port.js';
import { BlobReads, digestObject, readCapped, readInOrder, settled, type Digest } from './blobs.js';
import { fail, pass, unverifiable } from './checks.js';
import type { CheckSink } from './types.js';

/** The record's own tree: `record`, `candidate`, `base`, `base-commit`, `evidence/`. */
export type RecordFiles = ReadonlyMap<string, TreeEntry>;

/** Reads asked for together: artifacts of one record, its witnesses' kept output. */
const READ_GROUP = 16;

/** Kept inputs larger than this are not read back to re-parse (no handoff is near it). */
export const MAX_KEPT_INPUT_BYTES = MAX_WHOLE_OBJECT_BYTES;

/**
 * The base anchor (the stored commit bytes hash to `observed.base.commit` and name
 * `observed.base.tree`) and the candidate anchor (the stored candidate tree is
 * `observed.candidate.tree`). Returns the base commit's bytes when they check out.
 */
export async function checkAnchors(
  store: ObjectReader,
  record: LedgerRecord,
  files: RecordFiles,
  checks: CheckSink,
): Promise<Uint8Array | undefined> {
  const { base, candidate } = record.observed;
  const baseCommit = files.get(BASE_COMMIT_FILE);
  const raw = baseCommit
    ? (await readCapped(store, baseCommit.oid, MAX_KEPT_INPUT_BYTES))?.bytes
    : undefined;
  const id = 'observed.base';
  let verifiedRaw: Uint8Array | undefined;
  if (base.commit === null) {
    // A record made before the repository's first commit: its base is the empty tree.
    checks.push(
      base.tree === EMPTY_TREE && files.get(BASE_TREE)?.oid === EMPTY_TREE && !baseCommit
        ? pass(id, 'anchor', 'base', 'no base commit: the empty tree', true)
        : fail(
            id,
            'anchor',
            'base',
            'a record without a base commit must have the empty tree as its base',
            true,
          ),
    );
  } else if (!raw) {
    checks.push(fail(id, 'anchor', 'base', 'the base commit bytes are missing', true));
  } else if (hashObject('commit', raw) !== base.commit) {
    checks.push(
      fail(id, 'anchor', 'base', `the stored base commit does not hash to ${base.commit}`, true),
    );
  } else if (baseTreeOf(raw) !== base.tree || files.get(BASE_TREE)?.oid !== base.tree) {
    checks.push(
      fail(id, 'anchor', 'base', `the base tree does not match commit ${base.commit}`, true),
    );
  } else {
    verifiedRaw = raw;
    checks.push(
      pass(
        id,
        'anchor',
        'base',
        `base commit ${base.commit.slice(0, 12)} with tree ${base.tree.slice(0, 12)}`,
        true,
      ),
    );
  }
  const cand = files.get(CANDIDATE_TREE);
  const candObject = cand ? await store.readChunks(cand.oid, () => undefined) : undefined;
  const candId = 'observed.candidate';
  if (!cand || cand.oid !== candidate.tree || cand.mode !== MODE.tree) {
    checks.push(
      fail(
        candId,
        'anchor',
        'candidate',
        `the candidate tree ${candidate.tree} is not the one stored with the record`,
        true,
      ),
    );
  } else if (candObject?.type !== 'tree') {
    checks.push(
      fail(
        candId,
        'anchor',
        'candidate',
        `the candidate tree ${candidate.tree} is missing from this repository`,
        true,
      ),
    );
  } else {
    checks.push(
      pass(
        candId,
        'anchor',
        'candidate',
        `candidate tree ${candidate.tree.slice(0, 12)} is stored`,
        true,
      ),
    );
  }
  return verifiedRaw;
}

function baseTreeOf(raw: Uint8Array): string | undefined {
  try {
    return parseCommit(raw).tree;
  } catch {
    return undefined;
  }
}

/**
 * Whether the base commit is in this repository at all. The record keeps a copy of its bytes,
 * so the anchor holds without it; but a record replayed from an unrelated repository (or whose
 * base was rebased away and pruned) is about history this repository does not have. That is
 * never skipped silently: `unverifiable`, so `--strict` fails on it.
 */
export async function checkBaseInRepository(
  store: ObjectReader,
  record: LedgerRecord,
  checks: CheckSink,
  shallow = false,
): Promise<void> {
  const commit = record.observed.base.commit;
  if (commit === null) return;
  const found = await store.readChunks(commit, () => undefined);
  const id = 'observed.base.commit';
  checks.push(
    found?.type === 'commit'
      ? pass(
          id,
          'anchor',
          'base commit',
          `base commit ${commit.slice(0, 12)} is in this repository`,
        )
      : unverifiable(
          id,
          'anchor',
          'base commit',
          // A shallow clone (actions/checkout's default) lacks most commits: the likely cause,
          // said first. Only the wording depends on .git/shallow; the verdict never does.
          shallow
            ? `base commit ${commit} is not in this repository, which is a shallow clone (.git/shallow): fetch the history (git fetch --unshallow, or actions/checkout with fetch-depth: 0) or this commit (git fetch origin ${commit}); otherwise the record was made on a branch not pushed (or fetched) here yet, in another repository, or the commit was rebased away and pruned`
            : `base commit ${commit} is not in this repository: the record was made on a branch not pushed (or fetched) here yet, in another repository, or the commit was rebased away and pruned (its stored copy still anchors the record, but the record is not about this repository's history)`,
        ),
  );
}

/** Every observed artifact against the candidate tree: blob id, sha256 and size, streamed. */
export async function checkArtifacts(
  store: ObjectReader,
  record: LedgerRecord,
  checks: CheckSink,
  blobs: BlobReads = new BlobReads(store),
): Promise<void> {
  const tree = record.observed.candidate.tree;
  const { artifacts } = record.observed;
  // Looked up one after another — the first lookup reads a directory, the rest find it cached
  // (a directory of 5,000 artifacts is read once, not once per lookup in flight) — then the
  // blobs streamed a group at a time (one trip through cat-file), and judged in order: a
  // failure is thrown where the one-at-a-time reads would have thrown it.
  const entries: PromiseSettledResult<TreeEntry | undefined>[] = [];
  for (const artifact of artifacts) {
    try {
      entries.push({ status: 'fulfilled', value: await lookupPath(store, tree, artifact.path) });
    } catch (reason) {
      entries.push({ status: 'rejected', reason });
      break;
    }
  }
  const found = await readInOrder(entries, READ_GROUP, async (looked) => {
    const entry = settled(looked);
    return { entry, digest: entry ? await blobs.facts(entry.oid) : undefined };
  });
  for (const [i, outcome] of found.entries()) {
    const artifact = artifacts[i]!;
    const id = `observed.artifacts[${i}]`;
    const { entry, digest } = settled(outcome);
    if (!entry || !digest) {
      checks.push(
        fail(id, 'artifact', artifact.path, `${id}: not found in the candidate tree`, true),
      );
      continue;
    }
    const wrong: string[] = [];
    if (digest.type !== 'blob')
      wrong.push(`the candidate tree holds a ${digest.type} there, not a file`);
    if (entry.oid !== artifact.blob)
      wrong.push(`${id}.blob: stored ${artifact.blob}, candidate tree has ${entry.oid}`);
    if (digest.sha256 !== artifact.sha256)
      wrong.push(`${id}.sha256: stored ${artifact.sha256}, re-derived ${digest.sha256}`);
    if (digest.size !== artifact.size)
      wrong.push(`${id}.size: stored ${artifact.size}, re-derived ${digest.size}`);
    checks.push(
      wrong.length > 0
        ? fail(id, 'artifact', artifact.path, wrong.join('; '), true)
        : pass(
            id,
            'artifact',
            artifact.path,
            `sha256 ${digest.sha256.slice(0, 16)}… ${digest.size} bytes`,
            true,
          ),
    );
  }
}

/**
 * Every kept evidence file against its blob (listed in the record's `evidence/` under its
 * sha256, hashing to it, of its recorded size). Returns the bytes the format parsed — the source
 * handoff and the evidence files by name — for the status re-derivation, or why they could not
 * all be read back.
 */
export async function checkEvidence(
  store: ObjectReader,
  record: LedgerRecord,
  files: RecordFiles,
  checks: CheckSink,
): Promise<KeptInputs | { unavailable: string }> {
  const { observed } = record;
  const listed = new Map<string, string>();
  const dir = files.get(EVIDENCE_DIR);
  if (dir) {
    const object = await store.read(dir.oid);
    if (object?.type === 'tree') for (const e of parseTree(object.bytes)) listed.set(e.name, e.oid);
  }
  /** The verdict on one kept file from what was read of it; returns the problem, if any. */
  const judge = (
    id: string,
    subject: string,
    file: Evidence,
    read: Digest | undefined,
  ): string | undefined => {
    const problem = evidenceProblem(id, file, read);
    checks.push(
      problem === undefined
        ? pass(
            id,
            'evidence',
            subject,
            `${file.size} bytes, sha256 ${file.sha256.slice(0, 16)}…`,
            true,
          )
        : fail(id, 'evidence', subject, problem, true),
    );
    return problem;
  };
  /** Checks one file kept whole; returns its bytes, or why they cannot be used. */
  const keep = async (
    id: string,
    subject: string,
    file: Evidence,
  ): Promise<Uint8Array | string> => {
    let read: Digest | undefined;
    let bytes: Uint8Array | undefined;
    if (listed.get(file.sha256) === file.blob) {
      const capped = await readCapped(store, file.blob, MAX_KEPT_INPUT_BYTES);
      read = capped;
      bytes = capped?.bytes;
    }
    const problem = judge(id, subject, file, read);
    if (problem !== undefined) return `${subject}: ${problem}`;
    if (bytes === undefined)
      return `${subject} is ${file.size} bytes, more than the ${MAX_KEPT_INPUT_BYTES} verify reads back`;
    return bytes ?? new Uint8Array();
  };
  // The witnesses' kept output is only digested (never held): read a group at a time, judged
  // in order. Files kept whole (below) stay one at a time: each may be 64 MiB.
  const outputs = observed.witnesses.flatMap((w, i) => [
    ...(w.stdout
      ? [
          {
            id: `observed.witnesses[${i}].stdout`,
            subject: `${w.command} (stdout)`,
            file: w.stdout,
          },
        ]
      : []),
    ...(w.stderr
      ? [
          {
            id: `observed.witnesses[${i}].stderr`,
            subject: `${w.command} (stderr)`,
            file: w.stderr,
          },
        ]
      : []),
  ]);
  const digests = await readInOrder(outputs, READ_GROUP, async ({ file }) =>
    listed.get(file.sha256) === file.blob ? digestObject(store, file.blob) : undefined,
  );
  for (const [k, outcome] of digests.entries()) {
    const { id, subject, file } = outputs[k]!;
    judge(id, subject, file, settled(outcome));
  }
  const unavailable: string[] = [];
  const attachments = new Map<string, Uint8Array>();
  for (const [j, { name, file }] of observed.evidence.entries()) {
    const got = await keep(`observed.evidence[${j}]`, name, file);
    if (typeof got === 'string') unavailable.push(got);
    else attachments.set(name, got);
  }
  let source: Uint8Array | undefined;
  if (observed.source) {
    const got = await keep('observed.source', 'source', observed.source);
    if (typeof got === 'string') unavailable.push(got);
    else source = got;
  }
  if (unavailable.length > 0) return { unavailable: unavailable.join('; ') };
  return { source, attachments };
}

function evidenceProblem(id: string, file: Evidence, read: Digest | undefined): string | undefined {
  if (!read) return 'the kept bytes are missing';
  if (read.sha256 !== file.sha256)
    return `${id}.sha256: kept bytes hash to ${read.sha256}, expected ${file.sha256}`;
  if (read.size !== file.size) return `${id}.size: ${read.size} bytes kept, recorded ${file.size}`;
  return undefined;
}

/** Records dated further than this after the verify time, or before their base commit, are flagged. */
const CLOCK_SKEW_MS = 24 * 60 * 60 * 1000;

/**
 * `recordedAt` comes from the recording machine's clock. Nothing orders by it (the log height
 * does), but a record dated after the verify time or before its own base commit says the clock
 * was wrong or the record was made by hand: flagged, never trusted.
 */
export function checkClock(
  record: LedgerRecord,
  baseCommitBytes: Uint8Array | undefined,
  now: Date,
  checks: CheckSink,
): void {
  const at = Date.parse(record.observed.recordedAt);
  const committer = baseCommitBytes
    ? /^committer .* (\d{1,15}) [+-]\d{4}$/m.exec(
        Buffer.from(baseCommitBytes).toString('utf8').split('\n\n')[0] ?? '',
      )
    : null;
  const baseTime = committer?.[1] === undefined ? undefined : Number(committer[1]) * 1000;
  const id = 'observed.recordedAt';
  const subject = record.observed.recordedAt;
  if (at > now.getTime() + CLOCK_SKEW_MS) {
    checks.push(
      unverifiable(
        id,
        'clock',
        subject,
        `recorded ${Math.round((at - now.getTime()) / 86_400_000)} day(s) after the verify time: the recording clock was wrong, or the record was not made by ledger`,
      ),
    );
  } else if (baseTime !== undefined && at < baseTime - CLOCK_SKEW_MS) {
    checks.push(
      unverifiable(
        id,
        'clock',
        subject,
        `recorded ${Math.round((baseTime - at) / 86_400_000)} day(s) before its base commit was made: one of the two clocks was wrong`,
      ),
    );
  }
}
