/**
 * What the export-time verification said of each witness a record carries. An export signs
 * only what was verified: a witness result counts as verified when a re-run under the
 * auditor's policy confirmed it (`--rerun`) or a trusted auditor's attestation did
 * (`--from-attestation`) — never because the record, which the agent can shape, says so.
 */
import type { LedgerRecord } from '../model/record.js';
import type { Check, Verdict } from '../verify/types.js';

export interface WitnessVerdict {
  verdict: Verdict;
  detail: string;
}

export interface UnverifiedWitness {
  /** Its position in `observed.witnesses`. */
  witness: number;
  command: string;
  verdict: Verdict;
  detail: string;
}

/** How the export treats the witnesses it carries, as written into the metadata. */
export type WitnessesStatus = 'verified' | 'none' | 'not verified (--allow-unverified)';

export interface ExportedWitnesses {
  /** One per observed witness, in the record's order. */
  each: WitnessVerdict[];
  unverified: UnverifiedWitness[];
  status: WitnessesStatus;
}

const WITNESS_ID = /^observed\.witnesses\[(\d+)\]$/;

export function exportedWitnesses(
  record: LedgerRecord,
  checks: readonly Check[],
): ExportedWitnesses {
  const byIndex = new Map<number, Check>();
  for (const c of checks) {
    const match = c.check === 'witness' ? WITNESS_ID.exec(c.id) : null;
    if (match) byIndex.set(Number(match[1]), c);
  }
  const each = record.observed.witnesses.map((w, i): WitnessVerdict => {
    const check = byIndex.get(i);
    // A check about another command is not this witness's verdict, whatever its position.
    if (check === undefined || check.subject !== w.command)
      return { verdict: 'unverifiable', detail: 'no verdict for this witness' };
    // A producer's signature attests the recorded result for the gate, but the auditor's key
    // signs only what was checked now: the signer may be the agent itself.
    if (check.attestedBy !== undefined)
      return {
        verdict: 'unverifiable',
        detail: `${check.detail}; not re-run, and a signature over the record is the signer's word, not a re-run: export with --rerun (the command allowed by the policy's rerun.commands) or --from-attestation`,
      };
    return { verdict: check.verdict, detail: check.detail };
  });
  const unverified = each.flatMap((v, i) =>
    v.verdict === 'verified'
      ? []
      : [{ witness: i, command: record.observed.witnesses[i]!.command, ...v }],
  );
  const status: WitnessesStatus =
    each.length === 0
      ? 'none'
      : unverified.length === 0
        ? 'verified'
        : 'not verified (--allow-unverified)';
  return { each, unverified, status };
}
