/**
 * Checks of what the agent claimed, against what `ledger` observed and stored. A claim that
 * cannot be checked is `unverifiable`, never `verified`.
 */
import { checkRepoPath } from '../paths/index.js';
import { lookupPath } from '../ledger/trees.js';
import type { LedgerRecord } from '../model/record.js';
import type { ObjectReader } from '../store/port.js';
import { createHash } from 'node:crypto';
import type { Check } from './types.js';
import type { VerifyOptions } from './verify.js';

/** Claimed statuses that mean "done and good", across the seed formats' vocabularies. */
const SUCCESS_WORDS = new Set([
  'success',
  'succeeded',
  'pass',
  'passed',
  'completed',
  'complete',
  'done',
  'ok',
  'accepted',
]);

/** Team-orchestration's rule: more than this share of bad references fails the whole result. */
const MAX_BAD_REFERENCE_SHARE = 0.3;

export async function checkClaims(
  store: ObjectReader,
  record: LedgerRecord,
  options: VerifyOptions,
  id: string,
  checks: Check[],
): Promise<void> {
  checkStatus(record, checks);
  checkClaimedAnchors(record, checks);
  await checkClaimedArtifacts(store, record, checks);
  await checkReferences(store, record, checks);
  await checkClaimedCommands(record, options, id, checks);
}

function checkStatus(record: LedgerRecord, checks: Check[]) {
  const claimed = record.claims.status;
  const effective = record.observed.effectiveStatus;
  const claimsSuccess = SUCCESS_WORDS.has(claimed.trim().toLowerCase());
  const why = record.observed.reasons.map((r) => `${r.code}: ${r.message}`).join('; ');
  if (claimsSuccess && effective !== 'success') {
    checks.push({
      check: 'status',
      subject: claimed,
      verdict: 'contradicted',
      detail: `claimed ${claimed}, effective ${effective}: ${why}`,
    });
  } else {
    checks.push({
      check: 'status',
      subject: claimed,
      verdict: 'verified',
      detail: `claimed ${claimed}, effective ${effective}${why ? ` (${why})` : ''}`,
    });
  }
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
    checks.push(
      base.commit !== null && matchesOid(anchors.baseCommit, base.commit)
        ? {
            check: 'claim.anchor',
            subject: 'baseCommit',
            verdict: 'verified',
            detail: `matches observed ${base.commit}`,
          }
        : {
            check: 'claim.anchor',
            subject: 'baseCommit',
            verdict: 'contradicted',
            detail: `claimed ${anchors.baseCommit}, observed ${base.commit ?? 'no base commit (the repository had none)'}`,
          },
    );
  }
  if (anchors.candidateTree !== undefined) {
    checks.push(
      matchesOid(anchors.candidateTree, candidate.tree)
        ? {
            check: 'claim.anchor',
            subject: 'candidateTree',
            verdict: 'verified',
            detail: `matches observed ${candidate.tree}`,
          }
        : {
            check: 'claim.anchor',
            subject: 'candidateTree',
            verdict: 'contradicted',
            detail: `claimed ${anchors.candidateTree}, observed ${candidate.tree}`,
          },
    );
  }
  if (anchors.branch !== undefined) {
    const same =
      branch !== undefined &&
      (anchors.branch === branch || anchors.branch === `refs/heads/${branch}`);
    checks.push({
      check: 'claim.anchor',
      subject: 'branch',
      verdict: branch === undefined ? 'unverifiable' : same ? 'verified' : 'contradicted',
      detail:
        branch === undefined
          ? 'no branch was checked out at record time'
          : `claimed ${anchors.branch}, observed ${branch}`,
    });
  }
}

async function checkClaimedArtifacts(store: ObjectReader, record: LedgerRecord, checks: Check[]) {
  const tree = record.observed.candidate.tree;
  for (const artifact of record.claims.artifacts ?? []) {
    const subject = artifact.path;
    const safe = checkRepoPath(artifact.path);
    if (!safe.ok) {
      checks.push({
        check: 'claim.artifact',
        subject: artifact.as ?? subject,
        verdict: 'unverifiable',
        detail: safe.problem,
      });
      continue;
    }
    const entry = await lookupPath(store, tree, safe.path);
    if (artifact.action === 'deleted') {
      checks.push(
        entry
          ? {
              check: 'claim.artifact',
              subject,
              verdict: 'contradicted',
              detail: 'claimed deleted, but present in the candidate tree',
            }
          : {
              check: 'claim.artifact',
              subject,
              verdict: 'verified',
              detail: 'absent from the candidate tree, as claimed',
            },
      );
      continue;
    }
    if (!entry) {
      checks.push({
        check: 'claim.artifact',
        subject,
        verdict: 'contradicted',
        detail: `claimed ${artifact.action}, but not in the candidate tree`,
      });
      continue;
    }
    if (artifact.sha256 === undefined) {
      checks.push({
        check: 'claim.artifact',
        subject,
        verdict: 'verified',
        detail: `present in the candidate tree (${artifact.action})`,
      });
      continue;
    }
    const object = await store.read(entry.oid);
    const sha256 = object ? createHash('sha256').update(object.bytes).digest('hex') : undefined;
    checks.push(
      sha256 === artifact.sha256
        ? {
            check: 'claim.artifact',
            subject,
            verdict: 'verified',
            detail: `sha256 ${sha256} as claimed`,
          }
        : {
            check: 'claim.artifact',
            subject,
            verdict: 'contradicted',
            detail: `claimed sha256 ${artifact.sha256}, candidate tree has ${sha256 ?? 'no blob'}`,
          },
    );
  }
}

async function checkReferences(store: ObjectReader, record: LedgerRecord, checks: Check[]) {
  const references = record.claims.references ?? [];
  if (references.length === 0) return;
  const lineCounts = new Map<string, number | undefined>();
  let bad = 0;
  for (const ref of references) {
    const subject = ref.line === undefined ? ref.path : `${ref.path}:${ref.line}`;
    const safe = checkRepoPath(ref.path);
    if (!safe.ok) {
      bad++;
      checks.push({ check: 'reference', subject, verdict: 'contradicted', detail: safe.problem });
      continue;
    }
    if (!lineCounts.has(safe.path)) {
      const entry = await lookupPath(store, record.observed.candidate.tree, safe.path);
      const object = entry ? await store.read(entry.oid) : undefined;
      lineCounts.set(safe.path, object?.type === 'blob' ? countLines(object.bytes) : undefined);
    }
    const lines = lineCounts.get(safe.path);
    const last = ref.endLine ?? ref.line;
    if (lines === undefined) {
      bad++;
      checks.push({
        check: 'reference',
        subject,
        verdict: 'contradicted',
        detail: 'no such file in the candidate tree',
      });
    } else if (last !== undefined && last > lines) {
      bad++;
      checks.push({
        check: 'reference',
        subject,
        verdict: 'contradicted',
        detail: `line ${last} is past the end (${lines} lines)`,
      });
    } else {
      checks.push({
        check: 'reference',
        subject,
        verdict: 'verified',
        detail: ref.unverified
          ? 'resolves (the agent marked it [UNVERIFIED])'
          : 'resolves in the candidate tree',
      });
    }
  }
  if (record.format === 'team' && bad / references.length > MAX_BAD_REFERENCE_SHARE) {
    checks.push({
      check: 'references',
      subject: 'result',
      verdict: 'contradicted',
      detail: `${bad} of ${references.length} references do not resolve (more than ${MAX_BAD_REFERENCE_SHARE * 100}%)`,
    });
  }
}

function countLines(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let n = 0;
  for (const b of bytes) if (b === 0x0a) n++;
  return bytes[bytes.length - 1] === 0x0a ? n : n + 1;
}

async function checkClaimedCommands(
  record: LedgerRecord,
  options: VerifyOptions,
  id: string,
  checks: Check[],
) {
  const observed = new Map(record.observed.witnesses.map((w) => [w.command, w]));
  for (const claim of record.claims.checks ?? []) {
    const subject = claim.command ?? claim.details ?? '(unnamed check)';
    if (claim.command === undefined || claim.result === 'skipped') {
      checks.push({
        check: 'claim.check',
        subject,
        verdict: 'unverifiable',
        detail: claim.result === 'skipped' ? 'claimed skipped' : 'no command to re-run',
      });
      continue;
    }
    const claimedPass = claim.result === 'passed';
    const witness = observed.get(claim.command);
    if (witness && !options.rerun) {
      const passed = witness.exitCode === 0 && !witness.timedOut;
      checks.push({
        check: 'claim.check',
        subject,
        verdict: passed === claimedPass ? 'verified' : 'contradicted',
        detail: `claimed ${claim.result}; ledger observed exit ${witness.exitCode ?? witness.signal} at record time`,
      });
      continue;
    }
    if (!options.rerun) {
      checks.push({
        check: 'claim.check',
        subject,
        verdict: 'unverifiable',
        detail: `claimed ${claim.result}; not re-run (use --rerun)`,
      });
      continue;
    }
    // A command the user also gave as a --witness of this record is theirs; otherwise the
    // agent wrote it, and only the auditor's policy can let it run.
    const outcome = await options.rerun({
      recordId: id,
      command: claim.command,
      candidateTree: record.observed.candidate.tree,
      origin: witness ? 'witness' : 'claim',
    });
    if (!outcome.ran) {
      checks.push({
        check: 'claim.check',
        subject,
        verdict: 'unverifiable',
        detail: `claimed ${claim.result}; ${outcome.reason}`,
        ...(outcome.output ? { rerun: outcome.output } : {}),
      });
      continue;
    }
    const passed = outcome.result.exitCode === 0 && !outcome.result.timedOut;
    checks.push({
      check: 'claim.check',
      subject,
      verdict: passed === claimedPass ? 'verified' : 'contradicted',
      detail: `claimed ${claim.result}; re-run gave ${outcome.result.timedOut ? 'a timeout' : `exit ${outcome.result.exitCode}`}`,
      ...(outcome.result.output ? { rerun: outcome.result.output } : {}),
    });
  }
}
