/**
 * The files the candidate tree adds to HEAD's tree that git tracks: staged (`git add`) and never
 * committed. The candidate tree carries them to every remote the ledger is pushed to, exactly
 * like an untracked file, and an agent can stage its `.env` as easily as leave it untracked; so
 * the secret scan takes them too (app/secrets.ts). Files HEAD already has are not: committing
 * them was someone's decision, and re-flagging a committed test key on every edit would stop
 * honest work.
 *
 * Walked in-process over the two trees, only into subtrees that differ (a small change reads a
 * few trees through the command's one cat-file). Entry names are compared as bytes: a name that
 * is not UTF-8 is still walked (the tree parser for ledger's own trees refuses those), so such a
 * name cannot hide its directory from the scan.
 */
import { LedgerError } from '../model/errors.js';
import { MODE } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';

export interface StagedFile {
  path: string;
  mode: string;
  blob: string;
}

interface RawEntry {
  mode: string;
  /** The name's bytes as latin1 text: one character per byte, compared byte for byte. */
  key: string;
  oid: string;
}

/** Staged files in `candidate` at paths `head` has no file at (head undefined: an unborn HEAD). */
export async function stagedNewFiles(
  reader: ObjectReader,
  head: string | undefined,
  candidate: string,
  /** Paths the caller scans already (untracked files): left out. */
  known: ReadonlySet<string>,
): Promise<StagedFile[]> {
  const found: StagedFile[] = [];
  const queue: { from: string | undefined; to: string; prefix: Buffer }[] = [
    { from: head, to: candidate, prefix: Buffer.alloc(0) },
  ];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { from, to, prefix } = next;
    if (from === to) continue;
    const before =
      from === undefined ? new Map<string, RawEntry>() : await readRawTree(reader, from);
    for (const entry of (await readRawTree(reader, to)).values()) {
      const old = before.get(entry.key);
      const name = Buffer.concat([prefix, Buffer.from(entry.key, 'latin1')]);
      if (entry.mode === MODE.tree) {
        const sub = old?.mode === MODE.tree ? old.oid : undefined;
        queue.push({ from: sub, to: entry.oid, prefix: Buffer.concat([name, Buffer.from('/')]) });
        continue;
      }
      if (entry.mode !== MODE.file && entry.mode !== MODE.executable) continue;
      if (old !== undefined && (old.mode === MODE.file || old.mode === MODE.executable)) continue;
      const path = name.toString('utf8');
      if (!known.has(path)) found.push({ path, mode: entry.mode, blob: entry.oid });
    }
  }
  return found;
}

async function readRawTree(reader: ObjectReader, oid: string): Promise<Map<string, RawEntry>> {
  const object = await reader.read(oid);
  if (object?.type !== 'tree')
    throw new LedgerError('CORRUPT', `tree ${oid} cannot be read from the repository`, {
      hint: 'Nothing was written. Check the repository with git fsck.',
    });
  const entries = new Map<string, RawEntry>();
  const buf = Buffer.from(object.bytes.buffer, object.bytes.byteOffset, object.bytes.byteLength);
  for (let at = 0; at < buf.length;) {
    const space = buf.indexOf(0x20, at);
    const nul = space < 0 ? -1 : buf.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > buf.length)
      throw new LedgerError('CORRUPT', `tree ${oid} is malformed at byte ${at}`, {
        hint: 'Nothing was written. Check the repository with git fsck.',
      });
    const key = buf.toString('latin1', space + 1, nul);
    entries.set(key, {
      mode: buf.toString('latin1', at, space),
      key,
      oid: buf.toString('hex', nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return entries;
}
