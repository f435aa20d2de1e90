/**
 * What a strict failure with nothing contradicted says: which checks were unverifiable, grouped
 * by kind, and the way out of each. "Some claims do not hold" would be untrue there — nothing
 * was found false, only not proven — and a team told that cannot tell what to change.
 */
import type { Check, VerifyReport } from './types.js';

/** How to make each kind of check verifiable (the rule in README "Witnesses under --strict"). */
const FIXES: Readonly<Record<string, string>> = {
  witness:
    "re-run them (verify --rerun; the policy's rerun.commands must list the command; the Action's rerun input) or sign the records with a key the policy trusts (record --sign, or ledger sign ID)",
  'claim.check':
    "allow the command in the policy's rerun.commands and run verify --rerun (commands the agent wrote never re-run otherwise)",
  anchor:
    // Not "the Action fetches them": it fetches by id only what the remote serves, and a base
    // commit amended away before its push is on no remote (red team, round seventeen).
    "fetch the base commits (git fetch --unshallow, or actions/checkout with fetch-depth: 0; the Action's fetch step fetches by id those the remote serves and warns how many it could not: a commit amended or reworded before its push is on no remote)",
  signature:
    "sign the records with a key in the policy's allowed_signers (record --sign, or ledger sign ID)",
  producer:
    "sign the records with a key in the policy's allowed_signers (record --sign, or ledger sign ID)",
  clock: 'check the recording machine’s clock; the record cannot be placed in time',
  leaf: 'remove or ignore signatures and attestations about records that are not in the ledger',
  attestation:
    'have the auditor attest again with a key allowed_signers lists as valid now (verify --rerun --record --sign): an attestation whose key lapsed contradicts a check that passes now',
};

export interface Unproven {
  check: string;
  count: number;
  /** One example, to find it in the output: `subject (record sha256:…)`. */
  example: string;
  fix: string;
}

/** The unverifiable checks of a report, one entry per kind, in the order they first occur. */
export function unproven(report: Pick<VerifyReport, 'ledger' | 'records'>): Unproven[] {
  const kinds = new Map<string, Unproven>();
  const add = (c: Check, record?: string) => {
    if (c.verdict !== 'unverifiable') return;
    const known = kinds.get(c.check);
    if (known) {
      known.count += 1;
      return;
    }
    kinds.set(c.check, {
      check: c.check,
      count: 1,
      example: `${c.subject}${record === undefined ? '' : ` (record ${record.slice(0, 19)})`}`,
      fix: FIXES[c.check] ?? 'see the check’s detail in `ledger verify` for what is missing',
    });
  };
  for (const c of report.ledger) add(c);
  for (const r of report.records) for (const c of r.checks) add(c, r.id);
  return [...kinds.values()];
}

/** Whether a report failed only because `--strict` counts unverifiable checks. */
export function strictOnly(report: Pick<VerifyReport, 'exitCode' | 'ledger' | 'records'>): boolean {
  if (report.exitCode !== 1) return false;
  const all = [...report.ledger, ...report.records.flatMap((r) => r.checks)];
  return !all.some((c) => c.verdict === 'contradicted');
}

/**
 * One line per kind: `3 witness check(s) unverifiable (e.g. …): fix`; and, when trusted
 * attestations were left out for another policy digest, the way to use them — else the advice
 * says "re-run or sign" to a team whose auditor already did (red team, round eleven).
 */
export function adviceLines(
  report: Pick<VerifyReport, 'ledger' | 'records' | 'otherPolicyAttestations'>,
): string[] {
  const lines = unproven(report).map(
    (u) => `${u.count} ${u.check} check(s) unverifiable (e.g. ${u.example}): ${u.fix}`,
  );
  const other = report.otherPolicyAttestations;
  if (other !== undefined && other.count > 0)
    lines.push(
      `${other.count} attestation(s) by ${other.signers.join(', ')} were not used: they were made under another policy (digest ${other.digests.map((d) => d.slice(0, 12)).join(', ')}); verify with that policy file, or attest again under this one (verify --rerun --record --sign)`,
    );
  return lines;
}
