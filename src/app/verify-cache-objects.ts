/**
 * The list of objects a cached verdict read, as the verified-state cache stores it beside its
 * entry (`verify-cache.ts`). Every one of them must be proved unchanged before the entry is
 * used (`verify-open-cache.ts`); for a 10,000-record ledger there are about 51,000, and reading,
 * checking and rewriting a 2 MB list of them on every run was a third of a cached verify's
 * time (issue 21). So the list is kept in two parts:
 *
 *   - segments: ids that were all found in one pack, named by the sha256 of that pack's whole
 *     index. A pack's index lists its ids, so while an index with the same digest is in use
 *     (beside the pack it describes, as `store/git/pack-index.ts` checks), every id of the
 *     segment is still there, and the segment is not read at all. A segment whose pack is gone
 *     or changed is read (its file is named by its own sha256) and its ids checked one by one;
 *   - the rest (loose objects, mostly the records made since the last repack) and the ids found
 *     absent, in the small main file, checked one by one on every run.
 *
 * The main file is named by its sha256, which the entry's MAC covers, and it names each
 * segment file by its sha256: nothing in either is believed unless those digests match.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomically } from '../paths/index.js';
import { packsHolding, type UsablePack } from '../store/git/pack-index.js';

const OID = /^[0-9a-f]{40}$/;
const SEGMENT_LINE = /^=([0-9a-f]{64}) ([0-9a-f]{64}) ([0-9]+)$/;
const MAIN_PREFIX = 'verified-objects.';
const SEGMENT_PREFIX = 'verified-packed.';
/**
 * Loose ids kept in the main file before those of a pack that has a segment are merged into
 * it: below this, a run reads and rewrites a few kilobytes, not the pack's segment.
 */
const LOOSE_MAX = 1024;

/** Ids all found in one pack when the segment was written. */
export interface Segment {
  /** sha256 of the pack's whole `.idx`. */
  pack: string;
  /** sha256 of the segment file (its name). */
  list: string;
  count: number;
}

/** The objects verdicts read: present ones must stay present, absent ones absent. */
export interface ObjectsList {
  segments: Segment[];
  present: string[];
  absent: string[];
}

export async function readObjectsList(
  cloneDir: string,
  digest: string,
): Promise<ObjectsList | undefined> {
  const text = await readDigested(join(cloneDir, `${MAIN_PREFIX}${digest}`), digest);
  if (text === undefined) return undefined;
  const list: ObjectsList = { segments: [], present: [], absent: [] };
  for (const line of text.split('\n')) {
    const segment = SEGMENT_LINE.exec(line);
    if (segment) list.segments.push({ pack: segment[1]!, list: segment[2]!, count: +segment[3]! });
    else if (OID.test(line)) list.present.push(line);
    else if (line.startsWith('-') && OID.test(line.slice(1))) list.absent.push(line.slice(1));
  }
  return list;
}

/** A segment's ids, or undefined when its file is missing or not the one the list names. */
export async function readSegment(
  cloneDir: string,
  segment: Segment,
): Promise<string[] | undefined> {
  const text = await readDigested(join(cloneDir, `${SEGMENT_PREFIX}${segment.list}`), segment.list);
  if (text === undefined) return undefined;
  const ids = text.split('\n').filter((line) => line !== '');
  return ids.length === segment.count && ids.every((oid) => OID.test(oid)) ? ids : undefined;
}

/**
 * Writes `list` (its segments as given: each was proved to stand in this run) and returns the
 * main file's digest. `packs`: the usable packs as this run found them — a segment says its ids
 * are in the index with that digest, which stays true whatever the file holds later. Loose ids a usable pack holds now move into a segment of that pack when
 * it has none yet (a first verify, or the first after a repack: the segment costs no read).
 * Those of a pack that has one stay loose — merging means reading the segment — until more
 * than LOOSE_MAX ids are loose; then they are merged in, so a pack keeps one segment.
 */
export async function writeObjectsList(
  cloneDir: string,
  packs: () => readonly UsablePack[],
  given: ObjectsList,
): Promise<string | undefined> {
  const presentSet = new Set(given.present);
  let present = [...presentSet];
  const absent = [...new Set(given.absent)].filter((oid) => !presentSet.has(oid));
  if (![...present, ...absent].every((oid) => OID.test(oid))) return undefined;
  let segments = [...given.segments];
  const merge = present.length > LOOSE_MAX;
  const moved = new Set<string>();
  const byPack =
    present.length === 0 ? new Map<string, string[]>() : packsHolding(packs(), present);
  for (const [pack, ids] of byPack) {
    if (!merge && segments.some((s) => s.pack === pack)) continue;
    const held = new Set<string>(ids);
    const kept: Segment[] = [];
    for (const s of segments) {
      const old = s.pack === pack ? await readSegment(cloneDir, s) : undefined;
      if (old === undefined) kept.push(s);
      else for (const oid of old) held.add(oid);
    }
    const text = [...held].sort().join('\n') + '\n';
    const list = sha256(text);
    await writeAtomically(join(cloneDir, `${SEGMENT_PREFIX}${list}`), text);
    segments = [...kept, { pack, list, count: held.size }];
    for (const oid of ids) moved.add(oid);
  }
  present = present.filter((oid) => !moved.has(oid));
  const text = [
    ...segments.map((s) => `=${s.pack} ${s.list} ${s.count}`),
    ...present.sort(),
    ...absent.sort().map((oid) => `-${oid}`),
  ]
    .map((line) => `${line}\n`)
    .join('');
  const digest = sha256(text);
  await writeAtomically(join(cloneDir, `${MAIN_PREFIX}${digest}`), text);
  return digest;
}

/** Removes list and segment files no kept entry names (best effort). */
export async function dropUnusedObjectFiles(cloneDir: string, kept: readonly string[]) {
  const used = new Set<string>();
  for (const digest of kept) {
    used.add(`${MAIN_PREFIX}${digest}`);
    for (const s of (await readObjectsList(cloneDir, digest))?.segments ?? [])
      used.add(`${SEGMENT_PREFIX}${s.list}`);
  }
  for (const name of await readdir(cloneDir)) {
    const ours = name.startsWith(MAIN_PREFIX) || name.startsWith(SEGMENT_PREFIX);
    if (ours && !name.endsWith('.tmp') && !used.has(name))
      await unlink(join(cloneDir, name)).catch(() => undefined);
  }
}

async function readDigested(path: string, digest: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  return sha256(text) === digest ? text : undefined;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
