/**
 * Files a handoff claims it created or modified become observed artifacts without `--artifact`,
 * where the trees confirm the claim: `created` absent from the base tree and present in the
 * candidate, `modified` present in both and different. What is digested is the candidate
 * tree's blob — what ledger observed — never anything the agent wrote about the file (a
 * claimed sha256 stays a claim, checked by verify). A claim the trees contradict, a deletion,
 * a path outside the repository, or anything but a regular file yields no artifact; the claim
 * itself is still judged by verify. Bounded: the first MAX_CLAIMED_ARTIFACTS claims only, and a
 * blob the snapshot did not already digest is hashed streamed, up to MAX_CLAIMED_HASH_BYTES in
 * all (a claimed file the agent staged with `git add` is in the index, not re-read).
 */
import { createHash } from 'node:crypto';
import { lookupPath } from '../ledger/trees.js';
import type { ClaimedArtifact, ObservedArtifact } from '../model/record.js';
import { checkRepoPath } from '../paths/index.js';
import type { FileDigest } from '../store/git/snapshot.js';
import { MODE } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';

export const MAX_CLAIMED_ARTIFACTS = 1000;
export const MAX_CLAIMED_HASH_BYTES = 256 * 1024 * 1024;

export async function claimedArtifacts(
  store: ObjectReader,
  claims: readonly ClaimedArtifact[],
  trees: { base: string; candidate: string },
  digested: ReadonlyMap<string, FileDigest>,
  named: ReadonlySet<string>,
): Promise<ObservedArtifact[]> {
  const out: ObservedArtifact[] = [];
  const seen = new Set(named);
  let budget = MAX_CLAIMED_HASH_BYTES;
  for (const claim of claims.slice(0, MAX_CLAIMED_ARTIFACTS)) {
    if (claim.action !== 'created' && claim.action !== 'modified') continue;
    const safe = checkRepoPath(claim.path);
    if (!safe.ok || seen.has(safe.path)) continue;
    const [before, after] = await Promise.all([
      lookupPath(store, trees.base, safe.path),
      lookupPath(store, trees.candidate, safe.path),
    ]);
    if (after === undefined || (after.mode !== MODE.file && after.mode !== MODE.executable))
      continue;
    const confirmed =
      claim.action === 'created'
        ? before === undefined
        : before !== undefined && (before.oid !== after.oid || before.mode !== after.mode);
    if (!confirmed) continue;
    seen.add(safe.path);
    const known = digested.get(safe.path);
    if (known !== undefined && known.blob === after.oid) {
      out.push({ path: safe.path, sha256: known.sha256, size: known.size, blob: after.oid });
      continue;
    }
    if (budget <= 0) continue;
    const hash = createHash('sha256');
    const info = await store.readChunks(after.oid, (chunk) => hash.update(chunk));
    if (info === undefined) continue;
    budget -= info.size;
    out.push({ path: safe.path, sha256: hash.digest('hex'), size: info.size, blob: after.oid });
  }
  return out;
}
