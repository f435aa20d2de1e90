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
import type { LedgerRecord } from '../model/record.js';
import { claimedCheckSubject } from './claim-commands.js';
import type { Check, Rerunner, Verdict } from './types.js';

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
  /** The attestation's leaf id. */
  attestation?: string;
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

/** What finds a check's verdict in an attestation: its id, and (check, subject) to confirm it. */
type CheckKey = Pick<Check, 'id' | 'check' | 'subject'>;

/** Every trusted attestation's verdict about each re-run check of `checks`, by check id. */
function candidatesByCheck(
  checks: readonly CheckKey[],
  trusted: readonly TrustedAttestation[],
): Map<string, AttestedVerdict[]> {
  const each = trusted.map((t) => ({ t, verdicts: attestedVerdicts(checks, t.attestation) }));
  const out = new Map<string, AttestedVerdict[]>();
  for (const check of checks) {
    if (!RERUN_CHECKS.has(check.check)) continue;
    out.set(
      check.id,
      each.flatMap(({ t, verdicts }) => {
        const found = verdicts.get(check.id);
        return found && found.check === check.check && found.subject === check.subject
          ? [{ ...found, signer: t.signer, at: t.attestation.at, attestation: t.id }]
          : [];
      }),
    );
  }
  return out;
}

/** The re-run checks of a record, as its verifier names them (witnesses.ts, claim-commands.ts). */
export function rerunChecksOf(record: LedgerRecord): CheckKey[] {
  return [
    ...record.observed.witnesses.map((w, i) => ({
      id: `observed.witnesses[${i}]`,
      check: 'witness',
      subject: w.command,
    })),
    ...(record.claims.checks ?? []).map((c, i) => ({
      id: `claims.checks[${i}]`,
      check: 'claim.check',
      subject: claimedCheckSubject(c),
    })),
  ];
}

/**
 * The checks a trusted auditor's re-run settled: those for which an attestation made with
 * `--rerun` holds a verdict `chooseAttested` picks. Only they are spared a re-run here
 * (`--rerun --from-attestation`). Deciding per record let one attestation whose re-run never ran
 * (a setup step the tree broke: all `unverifiable`) turn off every re-run of the record, and the
 * producer's signature then verified the witness nobody re-ran (red team, round twelve).
 */
export function settledByAttestation(
  checks: readonly CheckKey[],
  trusted: readonly TrustedAttestation[],
): Set<string> {
  const reran = trusted.filter((t) => t.attestation.rerun);
  const settled = new Set<string>();
  for (const [id, candidates] of candidatesByCheck(checks, reran))
    if (chooseAttested(candidates) !== undefined) settled.add(id);
  return settled;
}

/**
 * `rerun`, except for the settled checks: their attested verdict replaces the check
 * (`applyAttestations`). The outcome says `attempted` (the auditor's re-run was), so that
 * should the verdict not apply after all, the producer's signature still cannot stand in.
 */
export function withoutSettledReruns(rerun: Rerunner, settled: ReadonlySet<string>): Rerunner {
  if (settled.size === 0) return rerun;
  return (request) =>
    settled.has(request.checkId)
      ? Promise.resolve({
          ran: false as const,
          attempted: true as const,
          reason: 'not re-run: taken from a trusted attestation',
        })
      : rerun(request);
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
  const byCheck = candidatesByCheck(checks, trusted);
  // The attestations a verdict was taken from, for the `attestation` check to name.
  const used = new Set<string>();
  const out = checks.map((check) => {
    // A trusted auditor's re-run stands in for one here; it also outranks a producer's
    // signature over the record, as a re-run does (an unverifiable verdict outranks nothing).
    const signedOnly = check.attestedBy !== undefined;
    if (!RERUN_CHECKS.has(check.check) || (check.verdict !== 'unverifiable' && !signedOnly))
      return check;
    const candidates = byCheck.get(check.id) ?? [];
    const choice = chooseAttested(candidates);
    // None re-ran it: an unverifiable check shows the newest attestation's reason (a re-run
    // that was refused or timed out there); a check a signature verified keeps its verdict.
    const picked = choice?.chosen ?? (signedOnly ? undefined : newestOf(candidates));
    if (picked === undefined) return check;
    if (choice !== undefined && picked.attestation !== undefined) used.add(picked.attestation);
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
  out.push(startedFrom(trusted, used));
  return out;
}

/**
 * A finding for each lapsed attestation (its auditor's key outside its validity window now, so
 * not used) that contradicted a re-run check which passes now: `unverifiable`, so the default
 * gate is not decided by a key the policy no longer trusts, while `--strict` fails and says
 * how to settle it. Without it the attested failure disappeared without a word.
 */
export function lapsedContradictions(
  checks: readonly Check[],
  lapsed: readonly TrustedAttestation[],
): Check[] {
  return lapsed.flatMap((t) => {
    const byCheck = candidatesByCheck(checks, [t]);
    const hit = checks.filter(
      (c) =>
        c.verdict === 'verified' &&
        byCheck.get(c.id)?.some((v) => v.verdict === 'contradicted') === true,
    );
    const first = hit[0];
    if (first === undefined) return [];
    const more = hit.length > 1 ? ` and ${hit.length - 1} more` : '';
    return [
      {
        id: `attestation.lapsed[${t.id}]`,
        check: 'attestation',
        subject: t.id,
        verdict: 'unverifiable' as const,
        detail: `an attestation by ${t.signer} (${t.attestation.at}) was not used: allowed_signers puts its key outside its validity window now; it contradicted ${first.id} (${first.subject})${more}, which passes now`,
      },
    ];
  });
}

function newestOf(candidates: readonly AttestedVerdict[]): AttestedVerdict | undefined {
  return candidates.reduce<AttestedVerdict | undefined>(
    (newest, c) => (newest === undefined || c.at > newest.at ? c : newest),
    undefined,
  );
}

/**
 * The record's `attestation` check: which trusted attestations its verdicts started from. It
 * says so when none of their verdicts decided a check here: "started from" alone read as if an
 * auditor had vouched for the record.
 */
function startedFrom(trusted: readonly TrustedAttestation[], used: ReadonlySet<string>): Check {
  const newest = trusted.reduce((a, b) => (b.attestation.at > a.attestation.at ? b : a));
  const signers = [...new Set(trusted.map((t) => t.signer))].join(', ');
  const unused =
    used.size > 0
      ? ''
      : `; none of ${trusted.length === 1 ? 'its' : 'their'} verdicts was used: no check here was left to an auditor's re-run verdict (each was decided here, or the auditor's re-run did not run it either)`;
  return {
    id: 'attestation',
    check: 'attestation',
    subject: newest.id,
    verdict: 'verified',
    detail:
      (trusted.length === 1
        ? `started from an attestation signed by ${newest.signer} under this policy (${newest.attestation.at})`
        : `started from ${trusted.length} attestations signed by ${signers} under this policy (newest ${newest.attestation.at})`) +
      unused,
  };
}

/** The attestation's verdicts by check id; ids that are ambiguous are left out. */
function attestedVerdicts(
  checks: readonly CheckKey[],
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
