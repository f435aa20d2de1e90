/**
 * What the audit page shows of a record's content: a bounded diff of each claimed file (base
 * tree → candidate tree) and the last lines of each witness's kept output. Everything is read
 * from git objects the record names — never from the work tree, which the agent may have
 * changed since — and bounded per file, per stream and per page (`src/report/bounded.ts`).
 * Records are filled in page order, worst first, so the page's budget goes to what a reviewer
 * needs most. The work is bounded as well as what is shown: blobs are streamed and given up past
 * the per-file cap, every byte read counts on the page's read budget, an unchanged file is known
 * by its blob id without a read, and once one view does not fit nothing after it is read.
 */
import { lookupPath } from '../ledger/trees.js';
import {
  DIFF_CAPS,
  DIFF_MAX_BYTES,
  lineDiff,
  NO_ROOM,
  PageBudget,
  tailOf,
  TAIL_MAX_BYTES,
  textOf,
} from '../report/bounded.js';
import type { LedgerRecord } from '../model/record.js';
import type { AuditReport, ClaimedFile, WitnessOutput } from '../report/model.js';
import { MODE, type TreeEntry } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';

/** Characters of diffs and output tails one page holds at most (1,000 records stay < 2 MB). */
export const PAGE_EVIDENCE_CHARS = 100_000;
/** Claimed files diffed per record at most; the rest are listed without a diff. */
const FILES_PER_RECORD = 20;

const SPENT = NO_ROOM;

/** Thrown from a streamed read to stop it: the blob is past what the page reads of one. */
const TOO_LARGE = Symbol('too large');

async function entryAt(
  store: ObjectReader,
  tree: string,
  path: string,
): Promise<TreeEntry | undefined | 'not a file'> {
  const entry = await lookupPath(store, tree, path).catch(() => undefined);
  if (entry === undefined) return undefined;
  if (entry.mode !== MODE.file && entry.mode !== MODE.executable) return 'not a file';
  return entry;
}

/**
 * A blob's bytes, read in chunks and given up past `max` bytes, every byte read counted on the
 * page's budget: a planted blob of any size costs the page at most what it reads of it.
 */
async function readBlob(
  store: ObjectReader,
  oid: string,
  max: number,
  budget: PageBudget,
): Promise<Uint8Array | 'missing' | 'too large'> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const info = await store
    .readChunks(oid, (chunk) => {
      budget.read(chunk.length);
      size += chunk.length;
      if (size > max) throw TOO_LARGE;
      chunks.push(Uint8Array.from(chunk));
    })
    .catch((error: unknown) => (error === TOO_LARGE ? TOO_LARGE : undefined));
  if (info === TOO_LARGE) return 'too large';
  if (info?.type !== 'blob') return 'missing';
  return Buffer.concat(chunks);
}

/**
 * The last `max` bytes of a blob (and whether there was more), streamed: a kept output of any
 * size is never held whole. Every byte read is counted on the page's budget.
 */
async function readTail(
  store: ObjectReader,
  oid: string,
  max: number,
  budget: PageBudget,
): Promise<{ bytes: Uint8Array; cut: boolean } | undefined> {
  let kept: Uint8Array[] = [];
  let keptBytes = 0;
  let size = 0;
  const info = await store
    .readChunks(oid, (chunk) => {
      budget.read(chunk.length);
      size += chunk.length;
      kept.push(Uint8Array.from(chunk.subarray(Math.max(0, chunk.length - max))));
      keptBytes += Math.min(chunk.length, max);
      if (keptBytes > 2 * max) {
        const joined = Buffer.concat(kept);
        kept = [joined.subarray(joined.length - max)];
        keptBytes = max;
      }
    })
    .catch(() => undefined);
  if (info?.type !== 'blob') return undefined;
  const joined = Buffer.concat(kept);
  return { bytes: joined.subarray(Math.max(0, joined.length - max)), cut: size > max };
}

async function claimedFile(
  store: ObjectReader,
  anchors: { baseTree: string; candidateTree: string },
  artifact: { path: string; sha256: string; size: number },
  budget: PageBudget,
  diffHere: boolean,
): Promise<ClaimedFile> {
  const file = { path: artifact.path, sha256: artifact.sha256, size: artifact.size };
  if (!diffHere) return { ...file, change: 'unknown', note: 'not diffed: too many files' };
  if (budget.spent) return { ...file, change: 'unknown', note: SPENT };
  const [before, after] = await Promise.all([
    entryAt(store, anchors.baseTree, artifact.path),
    entryAt(store, anchors.candidateTree, artifact.path),
  ]);
  if (before === 'not a file' || after === 'not a file')
    return { ...file, change: 'unknown', note: 'not a regular file' };
  const change =
    before === undefined
      ? after === undefined
        ? 'unknown'
        : 'added'
      : after === undefined
        ? 'deleted'
        : before.oid === after.oid
          ? 'unchanged'
          : 'modified';
  // Same blob id, same bytes: nothing to read.
  if (change === 'unchanged' || change === 'unknown') return { ...file, change };
  const tooLarge: ClaimedFile = {
    ...file,
    change,
    note: `not diffed: over ${DIFF_MAX_BYTES} bytes`,
  };
  // The recorded size of the candidate's blob spares reading one that cannot be diffed.
  if (after !== undefined && artifact.size > DIFF_MAX_BYTES) return tooLarge;
  const sides: (Uint8Array | undefined)[] = [];
  for (const entry of [before, after]) {
    if (entry === undefined) {
      sides.push(undefined);
      continue;
    }
    const bytes = await readBlob(store, entry.oid, DIFF_MAX_BYTES, budget);
    if (bytes === 'missing')
      return { ...file, change: 'unknown', note: 'its blob is not in this repository' };
    if (bytes === 'too large') return tooLarge;
    sides.push(bytes);
  }
  const [a, b] = sides;
  const textA = a === undefined ? '' : textOf(a);
  const textB = b === undefined ? '' : textOf(b);
  if (textA === undefined || textB === undefined)
    return { ...file, change, note: 'binary: not diffed' };
  const diff = lineDiff(
    a === undefined ? undefined : textA,
    b === undefined ? undefined : textB,
    DIFF_CAPS,
    budget,
  );
  if (!budget.take(diff.lines.map((l) => l.text))) {
    budget.close();
    return { ...file, change, note: SPENT };
  }
  return { ...file, change, diff };
}

async function witnessOutput(
  store: ObjectReader,
  streams: {
    stdout?: { blob: string; size: number } | undefined;
    stderr?: { blob: string; size: number } | undefined;
  },
  budget: PageBudget,
): Promise<WitnessOutput | undefined> {
  if (streams.stdout === undefined && streams.stderr === undefined)
    return { note: 'output not kept' };
  const out: WitnessOutput = {};
  for (const name of ['stdout', 'stderr'] as const) {
    const kept = streams[name];
    if (kept === undefined || kept.size === 0) continue;
    if (budget.spent) return { ...out, note: SPENT };
    const read = await readTail(store, kept.blob, TAIL_MAX_BYTES, budget);
    if (read === undefined) {
      out.note = 'its kept output is not in this repository';
      continue;
    }
    const tail = tailOf(read.bytes, read.cut);
    if (!budget.take(tail.lines)) {
      budget.close();
      return { ...out, note: SPENT };
    }
    out[name] = tail;
  }
  return out;
}

/** Fills each readable record's `files` and witness `output`, in page order, within budget. */
export async function attachEvidence(
  store: ObjectReader,
  report: AuditReport,
  records: ReadonlyMap<string, { record: LedgerRecord }>,
  budget = new PageBudget(PAGE_EVIDENCE_CHARS),
): Promise<void> {
  for (const r of report.records) {
    const rec = r.record;
    const stored = records.get(r.id)?.record;
    if (rec === undefined || stored === undefined) continue;
    const files: ClaimedFile[] = [];
    for (const [i, artifact] of rec.artifacts.entries())
      files.push(await claimedFile(store, rec.anchors, artifact, budget, i < FILES_PER_RECORD));
    rec.files = files;
    for (const [i, w] of rec.witnesses.entries()) {
      const output = await witnessOutput(store, stored.observed.witnesses[i] ?? {}, budget);
      if (output !== undefined) w.output = output;
    }
  }
}
