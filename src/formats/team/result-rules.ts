/**
 * The subagent contract's rules for a result, as reasons (never refusals):
 *   TEAM_MISSING_SECTION   Summary/Findings/Key References/Confidence absent (not for FAILED,
 *                          whose error format has other sections) → SUCCESS becomes partial
 *   TEAM_CONFIDENCE_UNJUSTIFIED            confidence ≥ 85 without a justification → partial
 *   TEAM_CONFIDENCE_UNVERIFIED_REFERENCES  confidence ≥ 85 resting on [UNVERIFIED] references
 *                          or findings (a Findings row, list item or paragraph, or an Issues
 *                          item so marked) → partial
 *   TEAM_CONFIDENCE_BREAKDOWN_MISSING      confidence ≥ 75 without verified/inferred breakdown — a note
 *   TEAM_UNCERTAINTY_MISSING               confidence < 70 without an Uncertainty section — a note
 */
import { worseStatus, type Claims, type Reason, type Status } from '../../model/record.js';
import { reason } from '../kit/claims.js';
import { REQUIRED, type Key } from './vocabulary.js';

export function resultRules(
  claims: Claims,
  start: Status,
  present: ReadonlySet<Key>,
  titles: readonly string[],
  text: string,
  /** Findings marked [UNVERIFIED] that are not claimed as a reference (which carries its mark). */
  unverifiedFindings = 0,
): { status: Status; reasons: Reason[] } {
  let status = start;
  const reasons: Reason[] = [];
  if (claims.status.toUpperCase() !== 'FAILED') {
    for (const r of REQUIRED) {
      if (present.has(r.key)) continue;
      if (status === 'success') status = 'partial';
      reasons.push(
        reason(
          'TEAM_MISSING_SECTION',
          `the ${r.name} section of the subagent-contract result is missing`,
          r.name,
        ),
      );
    }
  }
  const c = claims.confidence;
  if (!c) return { status, reasons };
  const block = titles.some(
    (t) => t.startsWith('confidence justification') || t.startsWith('信頼度の根拠'),
  );
  if (c.value >= 85 && c.justification === undefined && !block) {
    status = worseStatus(status, 'partial');
    reasons.push(
      reason(
        'TEAM_CONFIDENCE_UNJUSTIFIED',
        `confidence ${c.value} (≥ 85) is given without a justification`,
        'Confidence',
      ),
    );
  }
  const unverified = (claims.references ?? []).filter((r) => r.unverified === true).length;
  if (c.value >= 85 && unverified + unverifiedFindings > 0) {
    status = worseStatus(status, 'partial');
    // Without marked findings, the words records made before them were sealed with.
    reasons.push(
      unverifiedFindings === 0
        ? reason(
            'TEAM_CONFIDENCE_UNVERIFIED_REFERENCES',
            `confidence ${c.value} (≥ 85) rests on ${unverified} reference(s) marked [UNVERIFIED]`,
            'Key References',
          )
        : reason(
            'TEAM_CONFIDENCE_UNVERIFIED_REFERENCES',
            `confidence ${c.value} (≥ 85) rests on ${unverified} reference(s) and ${unverifiedFindings} finding(s) marked [UNVERIFIED]`,
            unverified === 0 ? 'Findings' : 'Key References',
          ),
    );
  }
  if (c.value >= 75 && !(/verified_confidence/i.test(text) && /inferred_confidence/i.test(text)))
    reasons.push(
      reason(
        'TEAM_CONFIDENCE_BREAKDOWN_MISSING',
        `confidence ${c.value} (≥ 75) without a verified_confidence / inferred_confidence breakdown`,
        'Confidence',
      ),
    );
  if (c.value < 70 && !titles.some((t) => t.startsWith('uncertainty') || t.startsWith('不確実性')))
    reasons.push(
      reason(
        'TEAM_UNCERTAINTY_MISSING',
        `confidence ${c.value} (< 70) without an Uncertainty section`,
        'Confidence',
      ),
    );
  return { status, reasons };
}
