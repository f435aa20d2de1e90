/**
 * `record` refuses to store an untracked file that looks secret (record/secrets.ts says what
 * does). The content rule reads what the snapshot stored — the blob, not the work-tree file
 * again — so a file rewritten between the two reads cannot slip past: what is scanned is what
 * would be pushed. The snapshot hands over the bytes it hashed into the blob when it still holds
 * them (`held`): the same bytes, without reading 64 MiB back through git — or, for a large
 * change, the verdict its pack workers reached on them (`scanned`: the same rule, run where the
 * bytes were read, in parallel). Bounded: only files git does not track, only blobs up to
 * MAX_SCAN_FILE_BYTES, smallest first until MAX_SCAN_TOTAL_BYTES were scanned (a key or an
 * `.env` is small; a 100 MiB data file is checked by its name only). Symlinks are never
 * refused: the candidate tree keeps a link's target path, never the bytes it points at.
 * Files staged and never committed (app/staged-files.ts) are scanned the same way, from the
 * store, and share the one budget: git tracks them, but no one has pushed them yet either.
 */
import { LedgerError, type Problem } from '../model/errors.js';
import { ContentScan, secretName, type SecretFinding } from '../record/secrets.js';
import { MODE } from '../store/objects.js';
import type { ScannedContent } from '../store/git/snapshot.js';
import type { ObjectReader } from '../store/port.js';
import { sanitizeLine } from '../paths/index.js';

export const MAX_SCAN_FILE_BYTES = 4 * 1024 * 1024;
export const MAX_SCAN_TOTAL_BYTES = 64 * 1024 * 1024;

/** A stored file the scan may look at: untracked, or staged and never committed. */
export interface ScanTarget {
  path: string;
  mode: string;
  blob: string;
  size: number;
  staged?: boolean;
}

/** A file that looks secret; `staged` when git tracks it (staged, never committed). */
export interface StoredSecret extends SecretFinding {
  staged?: true;
}

/**
 * The stored untracked (and staged, never committed) files that look secret, in path order.
 * `allowed` are the paths the user named with --include-untracked: stored as they are.
 */
export async function findSecrets(
  store: ObjectReader,
  files: Iterable<ScanTarget>,
  allowed: ReadonlySet<string>,
  /** Bytes the snapshot kept, each exactly what it hashed into the file's blob id. */
  held: ReadonlyMap<string, Uint8Array> = new Map(),
  /** The content rule's verdicts the snapshot's pack workers reached on those same bytes. */
  scanned: ReadonlyMap<string, ScannedContent> = new Map(),
): Promise<StoredSecret[]> {
  const findings: StoredSecret[] = [];
  const found = (file: ScanTarget, reason: string) =>
    findings.push({ path: file.path, reason, ...(file.staged === true ? { staged: true } : {}) });
  const toScan: ScanTarget[] = [];
  for (const file of files) {
    if (file.mode === MODE.symlink || allowed.has(file.path)) continue;
    const named = secretName(file.path);
    if (named !== undefined) found(file, named);
    else if (file.size <= MAX_SCAN_FILE_BYTES) toScan.push(file);
  }
  toScan.sort((a, b) => a.size - b.size || (a.path < b.path ? -1 : 1));
  let budget = MAX_SCAN_TOTAL_BYTES;
  for (const file of toScan) {
    if (file.size > budget) break;
    budget -= file.size;
    // Held bytes and worker verdicts are the untracked files'; a staged file is read from the
    // store (the blob is what the candidate tree names).
    const verdict = file.staged === true ? undefined : scanned.get(file.path);
    if (verdict !== undefined && verdict.size === file.size) {
      if (verdict.finding !== undefined) found(file, verdict.finding);
      continue;
    }
    const scan = new ContentScan();
    const bytes = file.staged === true ? undefined : held.get(file.path);
    if (bytes !== undefined && bytes.length === file.size) scan.push(bytes);
    else await store.readChunks(file.blob, (chunk) => scan.push(chunk));
    if (scan.finding !== undefined) found(file, scan.finding);
  }
  return findings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The refusal: which files, why, and the ways out. Quotes no byte of any file. */
export function secretRefusal(findings: readonly StoredSecret[]): LedgerError {
  const problems: Problem[] = findings.map((f) =>
    f.staged === true
      ? {
          path: 'staged',
          message: `${sanitizeLine(f.path)}: staged (git add) but never committed, and ${f.reason}`,
          expected:
            'a file unstaged (git rm --cached) and ignored, committed knowingly first, or named with --include-untracked',
          got: sanitizeLine(f.path),
        }
      : {
          path: 'untracked',
          message: `${sanitizeLine(f.path)}: untracked and not ignored, and ${f.reason}`,
          expected:
            'a file ignored by git (.gitignore), named with --include-untracked, or left out with --tracked-only',
          got: sanitizeLine(f.path),
        },
  );
  const first = sanitizeLine(findings[0]?.path ?? '');
  const names = findings.map((f) => sanitizeLine(f.path)).join(', ');
  const one = findings.length === 1;
  const staged = findings.filter((f) => f.staged === true).map((f) => sanitizeLine(f.path));
  if (staged.length === 0)
    return new LedgerError(
      'SECRET_FILE',
      `cannot record: ${one ? 'an untracked file looks' : `${findings.length} untracked files look`} secret (${names}); the candidate tree would carry ${one ? 'it' : 'them'} to every remote the ledger is pushed to`,
      {
        problems,
        hint:
          `Nothing was written. Either add ${one ? 'it' : 'them'} to .gitignore (or .git/info/exclude), ` +
          `or store ${one ? 'it' : 'them'} knowingly with --include-untracked ${first}` +
          `${findings.length > 1 ? ' (once per file)' : ''}, or record tracked files only with --tracked-only.`,
      },
    );
  // --tracked-only is no way out here: a staged file is tracked.
  return new LedgerError(
    'SECRET_FILE',
    `cannot record: ${one ? 'a file no commit has looks' : `${findings.length} files no commit has look`} secret (${names}; staged: ${staged.join(', ')}); the candidate tree would carry ${one ? 'it' : 'them'} to every remote the ledger is pushed to`,
    {
      problems,
      hint:
        `Nothing was written. Unstage a staged file (git rm --cached ${staged[0]}) and add it to .gitignore, ` +
        `or commit it first if it belongs in the repository, ` +
        `or store it knowingly with --include-untracked ${first}${findings.length > 1 ? ' (once per file)' : ''}.`,
    },
  );
}
