/**
 * The claims about files, against the trees: what a claimed artifact's action means (`created`
 * absent from the base tree and present in the candidate, and so on) and its digest, and every
 * `file:line` — a Key Reference or a finding — resolving in the candidate tree. A path outside
 * the repository is `unverifiable` with the reason, never dropped; a file named without its folder
 * and at neither root is judged against every file of that name (`byName`).
 */
import { lookupPath } from '../ledger/trees.js';
import type { ClaimedArtifact, LedgerRecord } from '../model/record.js';
import { checkRepoPath } from '../paths/index.js';
import type { TreeEntry } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import type { BlobReads } from './blobs.js';
import { byName, filesByName, type NameMatches } from './by-name.js';
import { claim } from './checks.js';
import { atPath, followedEntries, insideSubmodule, referencedFile } from './claim-paths.js';
import { lookAlikeNote } from './look-alike-names.js';
import type { FormatRules } from './format-rules.js';
import type { CheckDraft as Check, Verdict } from './types.js';

/** The verdict of one claimed action, from the file in the base tree and in the candidate. */
function actionVerdict(
  action: ClaimedArtifact['action'],
  base: TreeEntry | undefined,
  candidate: TreeEntry | undefined,
): { verdict: Verdict; detail: string } {
  const same =
    base !== undefined &&
    candidate !== undefined &&
    base.oid === candidate.oid &&
    base.mode === candidate.mode;
  switch (action) {
    case 'created':
      if (candidate === undefined)
        return {
          verdict: 'contradicted',
          detail: 'claimed created, but not in the candidate tree',
        };
      if (base !== undefined)
        return {
          verdict: 'contradicted',
          detail: `claimed created, but it was already in the base tree${same ? ' and is unchanged' : ''}`,
        };
      return {
        verdict: 'verified',
        detail: 'absent from the base tree, present in the candidate, as claimed',
      };
    case 'modified':
      if (candidate === undefined)
        return {
          verdict: 'contradicted',
          detail:
            base === undefined
              ? 'claimed modified, but in neither tree'
              : 'claimed modified, but deleted from the candidate tree',
        };
      if (base === undefined)
        return {
          verdict: 'contradicted',
          detail: 'claimed modified, but it is not in the base tree (created)',
        };
      if (same)
        return {
          verdict: 'contradicted',
          detail: 'claimed modified, but identical in the base and the candidate tree',
        };
      return { verdict: 'verified', detail: 'present in both trees and changed, as claimed' };
    case 'deleted':
      if (candidate !== undefined)
        return {
          verdict: 'contradicted',
          detail: 'claimed deleted, but present in the candidate tree',
        };
      if (base === undefined)
        return {
          verdict: 'contradicted',
          detail: 'claimed deleted, but it was not in the base tree either',
        };
      return {
        verdict: 'verified',
        detail: 'in the base tree, absent from the candidate, as claimed',
      };
    case 'touched':
      if (candidate !== undefined)
        return {
          verdict: 'verified',
          detail: same
            ? 'present in the candidate tree (unchanged from the base)'
            : 'present in the candidate tree',
        };
      if (base !== undefined)
        return {
          verdict: 'verified',
          detail: 'in the base tree and absent from the candidate (deleted)',
        };
      return { verdict: 'contradicted', detail: 'in neither the base nor the candidate tree' };
  }
}

/**
 * A claimed action (and digest) against the file at one path of the two trees. A claim false of
 * the entry itself but with a symlink on the way (`modified CLAUDE.md`, CLAUDE.md -> AGENTS.md)
 * is judged again at what the link leads to, as an editor writes through it, and the detail
 * names the link. A claim true of the link entry (the link itself changed) stays judged on it.
 * The agent makes the links, but following one only re-judges a claim its own entry
 * contradicts: a link it created or retargeted is already a change of that path, and through
 * links left as they were the claim holds only if what they lead to holds it.
 */
async function judgeAt(
  store: ObjectReader,
  blobs: BlobReads,
  record: LedgerRecord,
  artifact: ClaimedArtifact,
  path: string,
): Promise<{ verdict: Verdict; detail: string }> {
  const { base, candidate } = record.observed;
  const [before, after] = await Promise.all([
    atPath(store, base.tree, path),
    atPath(store, candidate.tree, path),
  ]);
  if (before.kind === 'submodule') return insideSubmodule(before.at);
  if (after.kind === 'submodule') return insideSubmodule(after.at);
  const judged = actionVerdict(artifact.action, before.entry, after.entry);
  if (judged.verdict === 'verified' || !(before.linked || after.linked))
    return withDigest(blobs, artifact, judged, before.entry, after.entry);
  const linked = await followedEntries(store, { base: base.tree, candidate: candidate.tree }, path);
  if ('verdict' in linked) return linked;
  const through = actionVerdict(artifact.action, linked.before, linked.after);
  const detail = `${through.detail}, ${linked.through}`;
  return withDigest(blobs, artifact, { ...through, detail }, linked.before, linked.after);
}

/**
 * A claimed digest against the file the verified action is about: the candidate's, or for a
 * file the candidate no longer holds (`deleted`, `touched` on a deleted file) the base's, its
 * content before the deletion. It was skipped there, and a claim holding a digest nobody
 * checked read `verified`.
 */
async function withDigest(
  blobs: BlobReads,
  artifact: ClaimedArtifact,
  judged: { verdict: Verdict; detail: string },
  before: TreeEntry | undefined,
  after: TreeEntry | undefined,
): Promise<{ verdict: Verdict; detail: string }> {
  const entry = after ?? before;
  if (judged.verdict !== 'verified' || artifact.sha256 === undefined || entry === undefined)
    return judged;
  // Streamed: a planted multi-gigabyte blob costs time, never memory.
  const sha256 = (await blobs.facts(entry.oid))?.sha256;
  const deleted = after === undefined ? ' (the file before its deletion)' : '';
  return sha256 === artifact.sha256
    ? { verdict: 'verified', detail: `${judged.detail}; sha256 ${sha256} as claimed${deleted}` }
    : {
        verdict: 'contradicted',
        detail:
          after === undefined
            ? `claimed sha256 ${artifact.sha256}, the base tree had ${sha256 ?? 'no blob'}${deleted}`
            : `claimed sha256 ${artifact.sha256}, candidate tree has ${sha256 ?? 'no blob'}`,
      };
}

export async function checkClaimedArtifacts(
  store: ObjectReader,
  blobs: BlobReads,
  record: LedgerRecord,
  checks: Check[],
) {
  const { base, candidate } = record.observed;
  const artifacts = record.claims.artifacts ?? [];
  // Walked once, on the first bare name found at neither root, for every bare name at once.
  let matches: Promise<NameMatches | undefined> | undefined;
  const bareNames = () =>
    new Set(artifacts.map((a) => a.path).filter((p) => !p.includes('/') && checkRepoPath(p).ok));
  for (const [i, artifact] of artifacts.entries()) {
    const id = `claims.artifacts[${i}]`;
    const subject = artifact.path;
    const safe = checkRepoPath(artifact.path);
    if (!safe.ok) {
      checks.push(
        claim(
          id,
          'claim.artifact',
          artifact.as ?? subject,
          'unverifiable',
          `not a path inside the repository (${safe.problem}): ledger cannot check it`,
        ),
      );
      continue;
    }
    let judged = await judgeAt(store, blobs, record, artifact, safe.path);
    if (!safe.path.includes('/')) {
      const [before, after] = await Promise.all([
        lookupPath(store, base.tree, safe.path),
        lookupPath(store, candidate.tree, safe.path),
      ]);
      if (before === undefined && after === undefined) {
        matches ??= filesByName(store, [base.tree, candidate.tree], bareNames());
        const found = await matches;
        const paths = found === undefined ? undefined : (found.get(safe.path) ?? []);
        const each =
          paths &&
          (await Promise.all(
            paths.map(async (path) => ({
              path,
              ...(await judgeAt(store, blobs, record, artifact, path)),
            })),
          ));
        judged = byName(safe.path, judged, each);
      }
    }
    if (judged.verdict === 'contradicted') {
      const note = await lookAlikeNote(store, candidate.tree, safe.path);
      judged = { ...judged, detail: `${judged.detail}${note}` };
    }
    checks.push(claim(id, 'claim.artifact', subject, judged.verdict, judged.detail));
  }
}

/** What a `file:line` names in the candidate: a line count (undefined: no such file), or why not. */
type Place = { lines: number | undefined; through?: string } | { verdict: Verdict; detail: string };

/** A `file:line` claim against the line count of the file it names. */
function lineVerdict(
  place: Place,
  ref: { last: number | undefined; unverified: boolean },
): { verdict: Verdict; detail: string } {
  if ('verdict' in place) return place;
  const via = place.through === undefined ? '' : `, ${place.through}`;
  if (place.lines === undefined)
    return { verdict: 'contradicted', detail: `no such file in the candidate tree${via}` };
  if (ref.last !== undefined && ref.last > place.lines)
    return {
      verdict: 'contradicted',
      detail: `line ${ref.last} is past the end (${place.lines} lines)${via}`,
    };
  return {
    verdict: 'verified',
    detail: ref.unverified
      ? `resolves (the agent marked it [UNVERIFIED])${via}`
      : `resolves in the candidate tree${via}`,
  };
}

/**
 * The highest line a reference names, which must exist for the reference to resolve. A range
 * written backwards (`line` 400, `endLine` 1: the ledger format and a stored record allow it) is
 * checked at its larger end, never at `endLine` alone, which let `a.js:400` of a 3-line file
 * verify. Not contradicted for its order: every line it names existing, a swapped range is a
 * slip of the pen, and contradicting it would fail an honest result over a place that resolves.
 */
function lastLine(ref: { line?: number | undefined; endLine?: number | undefined }) {
  if (ref.line === undefined || ref.endLine === undefined) return ref.endLine ?? ref.line;
  return Math.max(ref.line, ref.endLine);
}

/**
 * Every `file:line` claim — Key References and findings alike — against the candidate tree.
 * A format may fail the result as a whole above a share of bad ones (its verify rule).
 */
export async function checkFileLines(
  store: ObjectReader,
  blobs: BlobReads,
  record: LedgerRecord,
  rules: FormatRules,
  checks: Check[],
) {
  const located = [
    ...(record.claims.references ?? []).map((r, i) => ({
      id: `claims.references[${i}]`,
      check: 'reference',
      path: r.path,
      line: r.line,
      last: lastLine(r),
      unverified: r.unverified === true,
    })),
    ...(record.claims.findings ?? []).flatMap((f, i) =>
      f.path === undefined
        ? []
        : [
            {
              id: `claims.findings[${i}]`,
              check: 'finding',
              path: f.path,
              line: f.line,
              last: f.line,
              unverified: false,
            },
          ],
    ),
  ];
  if (located.length === 0) return;
  const places = new Map<string, Place>();
  // The share rule counts places, not claims: a place an Issues item and a Findings row both
  // name is one place (counted twice, one bad place beside a repeated good one passed, and a
  // repeated bad one could fail a result whose other places all resolve).
  const bad = new Set<string>();
  const checked = new Set<string>();
  let matches: Promise<NameMatches | undefined> | undefined;
  for (const ref of located) {
    const place = `${ref.path}\n${ref.line ?? ''}\n${ref.last ?? ''}`;
    const subject = ref.line === undefined ? ref.path : `${ref.path}:${ref.line}`;
    const safe = checkRepoPath(ref.path);
    if (!safe.ok) {
      checks.push(
        claim(
          ref.id,
          ref.check,
          subject,
          'unverifiable',
          `not a path inside the repository (${safe.problem}): ledger cannot check it`,
        ),
      );
      continue;
    }
    checked.add(place);
    const placeOf = async (path: string): Promise<Place> => {
      let place = places.get(path);
      if (place === undefined) {
        const file = await referencedFile(store, record.observed.candidate.tree, path);
        if ('verdict' in file) place = file;
        else {
          const counted = file.entry ? await blobs.facts(file.entry.oid) : undefined;
          const lines = counted?.type === 'blob' ? counted.lines : undefined;
          place = file.through === undefined ? { lines } : { lines, through: file.through };
        }
        places.set(path, place);
      }
      return place;
    };
    const named = await placeOf(safe.path);
    let judged = lineVerdict(named, ref);
    if ('lines' in named && named.lines === undefined && named.through === undefined) {
      if (!safe.path.includes('/')) {
        // Named without its folder (`Foo.java:12`): every file of that name in the candidate.
        matches ??= filesByName(
          store,
          [record.observed.candidate.tree],
          new Set(located.map((r) => r.path).filter((p) => !p.includes('/'))),
        );
        const found = await matches;
        const paths = found === undefined ? undefined : (found.get(safe.path) ?? []);
        const each =
          paths &&
          (await Promise.all(
            paths.map(async (path) => ({ path, ...lineVerdict(await placeOf(path), ref) })),
          ));
        judged = byName(safe.path, judged, each);
      }
    }
    if (judged.verdict === 'contradicted') {
      bad.add(place);
      const note = await lookAlikeNote(store, record.observed.candidate.tree, safe.path);
      judged = { ...judged, detail: `${judged.detail}${note}` };
    }
    // Which file is meant is not said: neither a good nor a bad place for the share rule.
    if (judged.verdict === 'unverifiable') checked.delete(place);
    checks.push(claim(ref.id, ref.check, subject, judged.verdict, judged.detail));
  }
  const share = rules.verify?.maxBadReferenceShare;
  if (share !== undefined && checked.size > 0 && bad.size / checked.size > share)
    checks.push(
      claim(
        'claims.references',
        'references',
        'result',
        'contradicted',
        `${bad.size} of ${checked.size} file:line references do not resolve (more than ${Math.round(share * 100)}%)`,
      ),
    );
}
