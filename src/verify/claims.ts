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
import { recordModule } from '../formats/index.js';
import { lookupPath } from '../ledger/trees.js';
import { statusRank, type ClaimedArtifact, type LedgerRecord } from '../model/record.js';
import { checkRepoPath } from '../paths/index.js';
import type { TreeEntry } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import { countLines as countBlobLines, digestObject } from './blobs.js';
import type { CheckDraft as Check, Rerunner, Verdict } from './types.js';

/** What the claim checks need of verify's options: only the re-runner (imported from no
 * verifier module, so that `verify.ts` and this file do not import each other). */
interface ClaimOptions {
  rerun?: Rerunner | undefined;
}

export async function checkClaims(
  store: ObjectReader,
  record: LedgerRecord,
  options: ClaimOptions,
  id: string,
  checks: Check[],
): Promise<void> {
  checkStatus(record, checks);
  checkClaimedAnchors(record, checks);
  await checkClaimedArtifacts(store, record, checks);
  await checkFileLines(store, record, checks);
  checkUncheckable(record, checks);
  await checkClaimedCommands(record, options, id, checks);
}

function claim(
  id: string,
  check: string,
  subject: string,
  verdict: Verdict,
  detail: string,
): Check {
  return { id, check, subject, verdict, detail };
}

/** A claimed status that means done, on a record whose effective status is lower, is false. */
function checkStatus(record: LedgerRecord, checks: Check[]) {
  const claimed = record.claims.status;
  const effective = record.observed.effectiveStatus;
  const meaning = recordModule(record).statusOf(claimed);
  const said = claimed === '' ? 'no status' : `claimed ${claimed}`;
  const why = record.observed.reasons.map((r) => `${r.code}: ${r.message}`).join('; ');
  const lowered = meaning === 'success' && statusRank(effective) > statusRank(meaning);
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

async function checkClaimedArtifacts(store: ObjectReader, record: LedgerRecord, checks: Check[]) {
  const { base, candidate } = record.observed;
  for (const [i, artifact] of (record.claims.artifacts ?? []).entries()) {
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
    const [before, after] = await Promise.all([
      lookupPath(store, base.tree, safe.path),
      lookupPath(store, candidate.tree, safe.path),
    ]);
    const judged = actionVerdict(artifact.action, before, after);
    if (judged.verdict !== 'verified' || artifact.sha256 === undefined || after === undefined) {
      checks.push(claim(id, 'claim.artifact', subject, judged.verdict, judged.detail));
      continue;
    }
    // Streamed: a planted multi-gigabyte blob costs time, never memory.
    const sha256 = (await digestObject(store, after.oid))?.sha256;
    checks.push(
      sha256 === artifact.sha256
        ? claim(
            id,
            'claim.artifact',
            subject,
            'verified',
            `${judged.detail}; sha256 ${sha256} as claimed`,
          )
        : claim(
            id,
            'claim.artifact',
            subject,
            'contradicted',
            `claimed sha256 ${artifact.sha256}, candidate tree has ${sha256 ?? 'no blob'}`,
          ),
    );
  }
}

/**
 * Every `file:line` claim — Key References and findings alike — against the candidate tree.
 * A format may fail the result as a whole above a share of bad ones (its verify rule).
 */
async function checkFileLines(store: ObjectReader, record: LedgerRecord, checks: Check[]) {
  const located = [
    ...(record.claims.references ?? []).map((r, i) => ({
      id: `claims.references[${i}]`,
      check: 'reference',
      path: r.path,
      line: r.line,
      last: r.endLine ?? r.line,
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
  const lineCounts = new Map<string, number | undefined>();
  let bad = 0;
  let checked = 0;
  for (const ref of located) {
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
    checked++;
    if (!lineCounts.has(safe.path)) {
      const entry = await lookupPath(store, record.observed.candidate.tree, safe.path);
      const counted = entry ? await countBlobLines(store, entry.oid) : undefined;
      lineCounts.set(safe.path, counted?.type === 'blob' ? counted.lines : undefined);
    }
    const lines = lineCounts.get(safe.path);
    if (lines === undefined) {
      bad++;
      checks.push(
        claim(ref.id, ref.check, subject, 'contradicted', 'no such file in the candidate tree'),
      );
    } else if (ref.last !== undefined && ref.last > lines) {
      bad++;
      checks.push(
        claim(
          ref.id,
          ref.check,
          subject,
          'contradicted',
          `line ${ref.last} is past the end (${lines} lines)`,
        ),
      );
    } else {
      checks.push(
        claim(
          ref.id,
          ref.check,
          subject,
          'verified',
          ref.unverified
            ? 'resolves (the agent marked it [UNVERIFIED])'
            : 'resolves in the candidate tree',
        ),
      );
    }
  }
  const share = recordModule(record).verify?.maxBadReferenceShare;
  if (share !== undefined && checked > 0 && bad / checked > share)
    checks.push(
      claim(
        'claims.references',
        'references',
        'result',
        'contradicted',
        `${bad} of ${checked} file:line references do not resolve (more than ${Math.round(share * 100)}%)`,
      ),
    );
}

/** Claims the format knows verify cannot check (prose where a path belongs): reported as such. */
function checkUncheckable(record: LedgerRecord, checks: Check[]) {
  for (const u of recordModule(record).verify?.uncheckable?.(record) ?? [])
    checks.push(claim(u.id, 'claim.unverifiable', u.subject, 'unverifiable', u.reason));
}

async function checkClaimedCommands(
  record: LedgerRecord,
  options: ClaimOptions,
  id: string,
  checks: Check[],
) {
  const observed = new Map(record.observed.witnesses.map((w) => [w.command, w]));
  for (const [i, claimed] of (record.claims.checks ?? []).entries()) {
    const cid = `claims.checks[${i}]`;
    const subject = claimed.command ?? claimed.details ?? '(unnamed check)';
    if (claimed.command === undefined || claimed.result === 'skipped') {
      checks.push(
        claim(
          cid,
          'claim.check',
          subject,
          'unverifiable',
          claimed.result === 'skipped' ? 'claimed skipped' : 'no command to re-run',
        ),
      );
      continue;
    }
    const claimedPass = claimed.result === 'passed';
    const witness = observed.get(claimed.command);
    if (witness && !options.rerun) {
      const passed = witness.exitCode === 0 && !witness.timedOut;
      checks.push(
        claim(
          cid,
          'claim.check',
          subject,
          passed === claimedPass ? 'verified' : 'contradicted',
          `claimed ${claimed.result}; ledger observed exit ${witness.exitCode ?? witness.signal} at record time`,
        ),
      );
      continue;
    }
    if (!options.rerun) {
      checks.push(
        claim(
          cid,
          'claim.check',
          subject,
          'unverifiable',
          `claimed ${claimed.result}; not re-run (use --rerun)`,
        ),
      );
      continue;
    }
    // A command the user also gave as a --witness of this record is theirs; otherwise the
    // agent wrote it, and only the auditor's policy can let it run.
    const outcome = await options.rerun({
      recordId: id,
      command: claimed.command,
      candidateTree: record.observed.candidate.tree,
      origin: witness ? 'witness' : 'claim',
    });
    if (!outcome.ran) {
      checks.push({
        ...claim(
          cid,
          'claim.check',
          subject,
          'unverifiable',
          `claimed ${claimed.result}; ${outcome.reason}`,
        ),
        ...(outcome.output ? { rerun: outcome.output } : {}),
      });
      continue;
    }
    const passed = outcome.result.exitCode === 0 && !outcome.result.timedOut;
    checks.push({
      ...claim(
        cid,
        'claim.check',
        subject,
        passed === claimedPass ? 'verified' : 'contradicted',
        `claimed ${claimed.result}; re-run gave ${outcome.result.timedOut ? 'a timeout' : `exit ${outcome.result.exitCode}`}`,
      ),
      ...(outcome.result.output ? { rerun: outcome.result.output } : {}),
    });
  }
}
