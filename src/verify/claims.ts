/**
 * Checks of what the agent claimed, against what `ledger` observed and stored. A claim means
 * what it says: `created` is absent from the base tree and present in the candidate,
 * `modified` present in both and different, `deleted` present in the base and absent from the
 * candidate; every `file:line` — a Key Reference or a finding — must resolve in the candidate
 * tree. A claim that cannot be checked (a path outside the repository, prose) is
 * `unverifiable` with the reason, never `verified`, never silently dropped. What a claimed
 * status means, and which extra rules apply, comes from the record's format module; nothing
 * here names a format.
 */
import type { LedgerRecord } from '../model/record.js';
import { statusRank, type Status } from '../model/vocabulary.js';
import type { ObjectReader } from '../store/port.js';
import { BlobReads } from './blobs.js';
import { checkClaimedCommands, type ClaimOptions } from './claim-commands.js';
import { checkClaimedArtifacts, checkFileLines } from './claim-files.js';
import { claim } from './checks.js';
import type { FormatRules } from './format-rules.js';
import type { CheckDraft as Check } from './types.js';

/**
 * `blobs`: the record's blob reads, shared with the observed checks (an artifact the agent
 * also names in a reference is streamed once). `rederived`: the status this build's reader
 * derives, when another reader revision sealed a different one (derived.ts).
 */
export async function checkClaims(
  store: ObjectReader,
  record: LedgerRecord,
  rules: FormatRules,
  options: ClaimOptions,
  id: string,
  checks: Check[],
  blobs: BlobReads = new BlobReads(store),
  rederived?: Status,
): Promise<void> {
  checkStatus(record, rules, checks, rederived);
  checkClaimedAnchors(record, checks);
  await checkClaimedArtifacts(store, blobs, record, checks);
  await checkFileLines(store, blobs, record, rules, checks);
  checkUncheckable(record, rules, checks);
  await checkClaimedCommands(record, options, id, checks);
}

/**
 * A claimed status that means done, on a record whose effective status is lower, is false.
 * When two reader revisions give different effective statuses (`rederived`) and only one of
 * them refutes the claim, neither is taken over the other: unverifiable, naming both.
 */
function checkStatus(
  record: LedgerRecord,
  rules: FormatRules,
  checks: Check[],
  rederived?: Status,
) {
  const claimed = record.claims.status;
  const effective = record.observed.effectiveStatus;
  const meaning = rules.statusOf(claimed);
  const said = claimed === '' ? 'no status' : `claimed ${claimed}`;
  const why = record.observed.reasons.map((r) => `${r.code}: ${r.message}`).join('; ');
  const lowers = (status: Status) =>
    meaning === 'success' && statusRank(status) > statusRank(meaning);
  const lowered = lowers(effective);
  if (rederived !== undefined && lowers(rederived) !== lowered) {
    checks.push(
      claim(
        'claims.status',
        'status',
        claimed === '' ? '(no status)' : claimed,
        'unverifiable',
        `${said}: effective ${effective} as the record's reader sealed it${why ? ` (${why})` : ''}, ${rederived} as this build's reader derives it (observed.effectiveStatus says why)`,
      ),
    );
    return;
  }
  checks.push(
    claim(
      'claims.status',
      'status',
      claimed === '' ? '(no status)' : claimed,
      lowered ? 'contradicted' : 'verified',
      lowered
        ? `${said}, effective ${effective}: ${why}`
        : `${said}, effective ${effective}${why ? ` (${why})` : ''}`,
    ),
  );
}

function matchesOid(claimed: string, actual: string): boolean {
  const c = claimed.trim().toLowerCase();
  return c.length >= 7 && /^[0-9a-f]+$/.test(c) && actual.startsWith(c);
}

function checkClaimedAnchors(record: LedgerRecord, checks: Check[]) {
  const anchors = record.claims.anchors;
  if (!anchors) return;
  const { base, candidate, branch } = record.observed;
  if (anchors.baseCommit !== undefined) {
    const ok = base.commit !== null && matchesOid(anchors.baseCommit, base.commit);
    checks.push(
      claim(
        'claims.anchors.baseCommit',
        'claim.anchor',
        'baseCommit',
        ok ? 'verified' : 'contradicted',
        ok
          ? `matches observed ${base.commit}`
          : `claimed ${anchors.baseCommit}, observed ${base.commit ?? 'no base commit (the repository had none)'}`,
      ),
    );
  }
  if (anchors.candidateTree !== undefined) {
    const ok = matchesOid(anchors.candidateTree, candidate.tree);
    checks.push(
      claim(
        'claims.anchors.candidateTree',
        'claim.anchor',
        'candidateTree',
        ok ? 'verified' : 'contradicted',
        ok
          ? `matches observed ${candidate.tree}`
          : `claimed ${anchors.candidateTree}, observed ${candidate.tree}`,
      ),
    );
  }
  if (anchors.branch !== undefined) {
    const same =
      branch !== undefined &&
      (anchors.branch === branch || anchors.branch === `refs/heads/${branch}`);
    checks.push(
      claim(
        'claims.anchors.branch',
        'claim.anchor',
        'branch',
        branch === undefined ? 'unverifiable' : same ? 'verified' : 'contradicted',
        branch === undefined
          ? 'no branch was checked out at record time'
          : `claimed ${anchors.branch}, observed ${branch}`,
      ),
    );
  }
}

/** Claims the format knows verify cannot check (prose where a path belongs): reported as such. */
function checkUncheckable(record: LedgerRecord, rules: FormatRules, checks: Check[]) {
  for (const u of rules.verify?.uncheckable?.(record) ?? [])
    checks.push(claim(u.id, 'claim.unverifiable', u.subject, 'unverifiable', u.reason));
}
