/**
 * What the audit page shows of a record's content: a bounded diff of each claimed file (base
 * tree → candidate tree) and the last lines of each witness's kept output. Everything is read
 * from git objects the record names — never from the work tree, which the agent may have
 * changed since — and bounded per file, per stream and per page (`src/report/bounded.ts`).
 * Records are filled in page order, worst first, so the page's budget goes to what a reviewer
 * needs most.
 */
import { lookupPath } from '../ledger/trees.js';
import {
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
import { MODE } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';

/** Characters of diffs and output tails one page holds at most (1,000 records stay < 2 MB). */
export const PAGE_EVIDENCE_CHARS = 100_000;
/** Claimed files diffed per record at most; the rest are listed without a diff. */
const FILES_PER_RECORD = 20;

const SPENT = NO_ROOM;

async function blobAt(
  store: ObjectReader,
  tree: string,
  path: string,
): Promise<Uint8Array | undefined | 'missing' | 'not a file'> {
  const entry = await lookupPath(store, tree, path).catch(() => undefined);
  if (entry === undefined) return undefined;
  if (entry.mode !== MODE.file && entry.mode !== MODE.executable) return 'not a file';
  const object = await store.read(entry.oid).catch(() => undefined);
  return object?.type === 'blob' ? object.bytes : 'missing';
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
    blobAt(store, anchors.baseTree, artifact.path),
    blobAt(store, anchors.candidateTree, artifact.path),
  ]);
  for (const side of [before, after])
    if (typeof side === 'string')
      return {
        ...file,
        change: 'unknown',
        note: side === 'missing' ? 'its blob is not in this repository' : 'not a regular file',
      };
  const a = before as Uint8Array | undefined;
  const b = after as Uint8Array | undefined;
  const change =
    a === undefined
      ? b === undefined
        ? 'unknown'
        : 'added'
      : b === undefined
        ? 'deleted'
        : Buffer.from(a).equals(b)
          ? 'unchanged'
          : 'modified';
  if (change === 'unchanged' || change === 'unknown') return { ...file, change };
  if ((a?.length ?? 0) > DIFF_MAX_BYTES || (b?.length ?? 0) > DIFF_MAX_BYTES)
    return { ...file, change, note: `not diffed: over ${DIFF_MAX_BYTES} bytes` };
  const textA = a === undefined ? '' : textOf(a);
  const textB = b === undefined ? '' : textOf(b);
  if (textA === undefined || textB === undefined)
    return { ...file, change, note: 'binary: not diffed' };
  const diff = lineDiff(a === undefined ? undefined : textA, b === undefined ? undefined : textB);
  if (!budget.take(diff.lines.map((l) => l.text))) return { ...file, change, note: SPENT };
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
    const object = await store.read(kept.blob).catch(() => undefined);
    if (object?.type !== 'blob') {
      out.note = 'its kept output is not in this repository';
      continue;
    }
    const cut = object.bytes.length > TAIL_MAX_BYTES;
    const tail = tailOf(
      object.bytes.subarray(Math.max(0, object.bytes.length - TAIL_MAX_BYTES)),
      cut,
    );
    if (!budget.take(tail.lines)) return { ...out, note: SPENT };
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
