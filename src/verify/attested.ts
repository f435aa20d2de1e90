/**
 * `--from-attestation`: re-run verdicts taken from the trusted attestations of a record, applied
 * to its checks before anything counts or drops them (record.ts). Applied later, after a text
 * verify had dropped its verified checks, a witness verified only through the producer's
 * signature was never replaced by the auditor's attested failure, and text passed what --json
 * failed (red team, round eleven).
 *
 * A record may have several trusted attestations. They are merged per check:
 * - an attestation that did not re-run a check (`unverifiable`: "not re-run by this auditor")
 *   says nothing about it, so a routine `verify --record` cannot erase an attested failure;
 * - of one auditor's re-runs, the newest counts: that auditor fixed their runner and ran again;
 * - across auditors, a contradiction outranks a pass: one auditor's clean checkout failing is
 *   what a lie that passes only on some machines looks like, and another's pass does not
 *   undo it. Every overruled verdict is named in the check's detail (docs/design.md).
 */
import type { Attestation, AttestedCheck } from '../model/attestation.js';
// From the vocabulary, not attestation.ts, which builds zod schemas: verify's start-up imports
// this module, and a verify with nothing new loads no zod (test/cli/startup.test.ts).
import { ATTESTATION_SCHEMA } from '../model/leaf-vocabulary.js';
import type { Check, Verdict } from './types.js';

/** An attestation a signer in the policy's auditor role signed, under the policy in force. */
export interface TrustedAttestation {
  id: string;
  signer: string;
  attestation: Attestation;
}

/** One attestation's verdict about one check, with who attested it and when. */
export interface AttestedVerdict {
  check: string;
  subject: string;
  verdict: Verdict;
  detail: string;
  signer: string;
  at: string;
}

/** The checks a re-run decides: the only ones an attestation stands in for. */
export const RERUN_CHECKS: ReadonlySet<string> = new Set(['witness', 'claim.check']);

/** Worst first: what outranks what across auditors. */
const RANK: Readonly<Record<Verdict, number>> = {
  contradicted: 0,
  stale: 1,
  verified: 2,
  unverifiable: 3,
};

/**
 * The verdict the merged attestations give one check, and the verdicts it overrules; undefined
 * when none of them re-ran it (every verdict `unverifiable`).
 */
export function chooseAttested(
  candidates: readonly AttestedVerdict[],
): { chosen: AttestedVerdict; overruled: AttestedVerdict[] } | undefined {
  const ran = candidates.filter((c) => c.verdict !== 'unverifiable');
  const newest = new Map<string, AttestedVerdict>();
  for (const c of ran) {
    const before = newest.get(c.signer);
    // Same instant: the worse verdict, so a tie never turns into a pass.
    if (
      !before ||
      before.at < c.at ||
      (before.at === c.at && RANK[c.verdict] < RANK[before.verdict])
    )
      newest.set(c.signer, c);
  }
  let chosen: AttestedVerdict | undefined;
  for (const c of newest.values())
    if (
      !chosen ||
      RANK[c.verdict] < RANK[chosen.verdict] ||
      (RANK[c.verdict] === RANK[chosen.verdict] && c.at > chosen.at)
    )
      chosen = c;
  if (chosen === undefined) return undefined;
  return { chosen, overruled: ran.filter((c) => c.verdict !== chosen.verdict) };
}

/** "auditor@corp: contradicted at …", for a detail or a note. */
export function describeOverruled(overruled: readonly AttestedVerdict[]): string {
  const shown = overruled.slice(0, 3).map((o) => `${o.signer}: ${o.verdict} at ${o.at}`);
  const more =
    overruled.length > shown.length ? ` and ${overruled.length - shown.length} more` : '';
  return `${shown.join('; ')}${more}`;
}

/**
 * Re-run verdicts (witness, claim.check) come from the attestations; everything else is
 * recomputed. A verdict is found by the check's id (v2), never by "the first with this check
 * and subject": a record that repeats a witness command has two such checks, and a recorded
 * contradiction of the second must not be read as the first one's pass. A v1 attestation has
 * no ids: its verdict is used only where (check, subject) names exactly one check on both sides.
 */
export function applyAttestations(
  checks: Check[],
  trusted: readonly TrustedAttestation[],
): Check[] {
  if (trusted.length === 0) return checks;
  const each = trusted.map((t) => ({ t, verdicts: attestedVerdicts(checks, t.attestation) }));
  const out = checks.map((check) => {
    // A trusted auditor's re-run stands in for one here; it also outranks a producer's
    // signature over the record, as a re-run does (an unverifiable verdict outranks nothing).
    const signedOnly = check.attestedBy !== undefined;
    if (!RERUN_CHECKS.has(check.check) || (check.verdict !== 'unverifiable' && !signedOnly))
      return check;
    const candidates: AttestedVerdict[] = each.flatMap(({ t, verdicts }) => {
      const found = verdicts.get(check.id);
      return found && found.check === check.check && found.subject === check.subject
        ? [{ ...found, signer: t.signer, at: t.attestation.at }]
        : [];
    });
    const choice = chooseAttested(candidates);
    // None re-ran it: an unverifiable check shows the newest attestation's reason (a re-run
    // that was refused or timed out there); a check a signature verified keeps its verdict.
    const picked = choice?.chosen ?? (signedOnly ? undefined : newestOf(candidates));
    if (picked === undefined) return check;
    const { attestedBy: _signature, ...rest } = check;
    const disagree =
      choice && choice.overruled.length > 0
        ? `; trusted attestations disagree, overruled: ${describeOverruled(choice.overruled)}`
        : '';
    return {
      ...rest,
      verdict: picked.verdict,
      detail: `${picked.detail} (attested by ${picked.signer} at ${picked.at}${disagree})`,
    };
  });
  out.push(startedFrom(trusted));
  return out;
}

function newestOf(candidates: readonly AttestedVerdict[]): AttestedVerdict | undefined {
  return candidates.reduce<AttestedVerdict | undefined>(
    (newest, c) => (newest === undefined || c.at > newest.at ? c : newest),
    undefined,
  );
}

/** The record's `attestation` check: which trusted attestations its verdicts started from. */
function startedFrom(trusted: readonly TrustedAttestation[]): Check {
  const newest = trusted.reduce((a, b) => (b.attestation.at > a.attestation.at ? b : a));
  const signers = [...new Set(trusted.map((t) => t.signer))].join(', ');
  return {
    id: 'attestation',
    check: 'attestation',
    subject: newest.id,
    verdict: 'verified',
    detail:
      trusted.length === 1
        ? `started from an attestation signed by ${newest.signer} under this policy (${newest.attestation.at})`
        : `started from ${trusted.length} attestations signed by ${signers} under this policy (newest ${newest.attestation.at})`,
  };
}

/** The attestation's verdicts by check id; ids that are ambiguous are left out. */
function attestedVerdicts(
  checks: readonly Check[],
  attestation: Attestation,
): Map<string, Omit<AttestedCheck, 'id'>> {
  const out = new Map<string, Omit<AttestedCheck, 'id'>>();
  const ambiguous = new Set<string>();
  const add = (key: string, verdict: Omit<AttestedCheck, 'id'>) => {
    if (out.has(key) || ambiguous.has(key)) {
      ambiguous.add(key);
      out.delete(key);
    } else out.set(key, verdict);
  };
  if (attestation.schema === ATTESTATION_SCHEMA) {
    for (const v of attestation.verdicts) add(v.id, v);
    return out;
  }
  // v1: by (check, subject), and only where that pair is unique among this record's checks.
  const pair = (c: { check: string; subject: string }) => JSON.stringify([c.check, c.subject]);
  const byPair = new Map<string, Omit<AttestedCheck, 'id'>>();
  for (const v of attestation.verdicts) {
    const key = pair(v);
    if (byPair.has(key) || ambiguous.has(key)) {
      ambiguous.add(key);
      byPair.delete(key);
    } else byPair.set(key, v);
  }
  const counts = new Map<string, number>();
  for (const c of checks) counts.set(pair(c), (counts.get(pair(c)) ?? 0) + 1);
  for (const c of checks) {
    const found = byPair.get(pair(c));
    if (found && counts.get(pair(c)) === 1) out.set(c.id, found);
  }
  return out;
}
