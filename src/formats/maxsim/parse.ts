/**
 * A MaxsimCLI handoff → claims, and the system's rules as reasons (never refusals):
 *   MAXSIM_MISSING_SECTION   a contract section is absent → at best partial (resubmission)
 *   MAXSIM_NO_EVIDENCE       a status without evidence → failed
 *   MAXSIM_FAILED_EVIDENCE   a completion claim whose own evidence reports a failure → failed
 *   MAXSIM_FORBIDDEN_PHRASE  an anti-rationalization phrase → failed
 *   MAXSIM_SELF_CHECK_FAILED the executor's own `## Self-Check: FAILED` → failed
 *   MAXSIM_PART_STATUS       a joined part's `**Status:**` worse than the summary's → that status
 *   MAXSIM_STATUS_MARK_CONTRADICTS  a mark that says the opposite of the status word → failed
 *   MAXSIM_NO_EVIDENCE_BLOCKS  no CLAIM/EVIDENCE/OUTPUT/VERDICT blocks: a note (the contract does
 *                            not ask for them; the verification skill does)
 *   MAXSIM_EVIDENCE_BLOCKS_REQUIRED  the same, where the auditor's policy makes it a gate: a
 *                            completion claim drops to partial
 */
import type { Problem } from '../../model/errors.js';
import {
  worseStatus,
  type Claims,
  type ClaimedCheck,
  type Reason,
  type Status,
} from '../../model/record.js';
import type { ParseContext, ParseResult } from '../contract.js';
import { claimsProblems, reason } from '../kit/claims.js';
import { asCommonMarkReads } from '../kit/commonmark.js';
import { splitFrontMatter } from '../kit/front-matter.js';
import { splitSections, type Section } from '../kit/markdown.js';
import { contradictionName, statusContradiction } from '../kit/status-mark.js';
import { decodeText, preview } from '../kit/text.js';
import { withoutForecasts, blockChecks, forbiddenPhrasesIn, missingMarkers } from './evidence.js';
import { evidenceLineChecks } from './evidence-lines.js';
import { evidenceTableChecks } from './gsd2.js';
import { seemsToBe } from './look-alikes.js';
import { artifactsOf, decisionsOf, deferredOf, statusOf, type Occurrence } from './repeated.js';
import { parseArtifacts } from './sections.js';
import { judgeSelfReports, selfReports, summaryMeaning } from './self-reports.js';
import { openingOf, phaseSummaryOf, readPhaseSummary } from './summary.js';
import { acResultChecks, verificationChecks } from './verification.js';
import {
  COMPLETION,
  MAXSIM_SECTIONS,
  MAXSIM_VOCABULARY,
  actionGroup,
  sectionOf,
  type SectionName,
} from './vocabulary.js';

/** Sub-sections that belong to a contract section (`### Created` under `## Artifacts`). */
function belongsTo(name: SectionName, sub: Section): boolean {
  if (name === 'Artifacts') return actionGroup(sub.title) !== undefined;
  if (name === 'Status') return /^evidence\b/i.test(sub.title.replace(/[*_`]/g, ''));
  return false;
}

/**
 * The contract sections found, deeper sub-sections that belong to them folded in; a section
 * written more than once keeps every occurrence, in document order (repeated.ts reads them).
 */
function readLayout(sections: readonly Section[], offset: number) {
  const seen = new Map<SectionName, Occurrence[]>();
  const layout: { heading: string; body?: string; section?: SectionName }[] = [];
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i]!;
    const known = sectionOf(s.title);
    if (!known) {
      layout.push({ heading: s.heading, body: s.body });
      continue;
    }
    let body = s.body;
    while (i + 1 < sections.length) {
      const sub = sections[i + 1]!;
      if (sub.level <= s.level || !belongsTo(known.name, sub)) break;
      body = `${body}\n\n${sub.heading}\n${sub.body}`.replace(/^\n+/, '');
      i++;
    }
    const line = s.line + offset;
    const all = seen.get(known.name) ?? [];
    all.push(known.inline === undefined ? { body, line } : { body, inline: known.inline, line });
    seen.set(known.name, all);
    layout.push({ heading: s.heading, section: known.name });
  }
  return { seen, layout };
}

/**
 * A refusal says what the document seems to be when it is another file of the GSD family (a
 * plan, a verification report), before what is wrong with it as a summary.
 */
export function parseMaxsim(bytes: Uint8Array, ctx: ParseContext): ParseResult {
  const result = readMaxsim(bytes, ctx);
  if (result.ok) return result;
  const decoded = decodeText(bytes);
  const what = decoded.ok ? seemsToBe(decoded.text, ctx.fileName) : undefined;
  if (what === undefined) return result;
  const problem: Problem = {
    path: '',
    message: `read as a MaxsimCLI handoff or GSD-family summary, but this looks like ${what}, not a summary`,
    expected: 'a summary of work done (NN-MM-SUMMARY.md, T01-SUMMARY.md) or a handoff',
  };
  return { ok: false, problems: [problem, ...result.problems] };
}

function readMaxsim(bytes: Uint8Array, ctx: ParseContext): ParseResult {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  const text = asCommonMarkReads(decoded.text);
  const split = splitFrontMatter(text);
  const { preamble, sections } = splitSections(split?.body ?? text);
  const problems: Problem[] = [];
  const extra: Record<string, unknown> = {};
  if (split) extra['frontMatter'] = split.raw;
  if (preamble !== '') extra['preamble'] = preamble;
  // Lines before the body (the front matter), so that a section's line is the document's.
  const offset = split ? text.slice(0, text.length - split.body.length).split('\n').length - 1 : 0;
  const { seen, layout } = readLayout(sections, offset);
  const repeated = [...seen].filter(([, all]) => all.length > 1);
  // Said in the record: the section was written more than once and read as one.
  if (repeated.length > 0)
    extra['repeatedSections'] = repeated.map(([section, all]) => ({
      section,
      lines: all.map((o) => o.line),
    }));
  const summaryOf = phaseSummaryOf(split?.raw, split?.body ?? text);
  if (summaryOf && 'problems' in summaryOf) return { ok: false, problems: summaryOf.problems };
  const summary = summaryOf
    ? readPhaseSummary(
        summaryOf.fm,
        sections,
        problems,
        openingOf(split?.body ?? text),
        offset,
        split?.raw ?? '',
      )
    : undefined;
  const bodyLines = { lines: (split?.body ?? text).split('\n'), offset };
  const table = summary ? evidenceTableChecks(sections, bodyLines, problems) : undefined;
  const tableChecks = table?.checks ?? [];
  // What a summary's `## Verification` items and VBW's `ac_results` say it ran: a check where the
  // item says the result outright, else unchecked with its line (verification.ts).
  // A contract handoff's own `### Verification` section is read as a summary's: its template
  // has none, but an agent that adds one states results there (issue 20).
  const said = [
    verificationChecks(sections, bodyLines),
    ...(summaryOf ? [acResultChecks(summaryOf.fm, text)] : []),
  ];
  const saidChecks = said.flatMap((x) => x.checks);
  // `## Self-Check: FAILED`, and each joined part's own `**Status:**` (self-reports.ts).
  const own = selfReports(bodyLines, summary !== undefined);
  const unchecked = [
    ...(summary?.unchecked ?? []),
    ...(table?.unchecked ?? []),
    ...said.flatMap((x) => x.unchecked),
    ...own.unchecked,
  ];
  if (unchecked.length > 0) extra['unchecked'] = unchecked;
  if (seen.size === 0 && summary === undefined) {
    // `---` then `key: value` lines and no closing `---` (a real GSD summary): its key_files
    // would be read as body text and dropped. Said with its line, not "no section found".
    if (!split && /^---[ \t]*\r?\n[A-Za-z_][\w-]*[ \t]*:/.test(text))
      problems.push({
        path: 'frontMatter',
        message:
          'line 1: front matter opens with --- but no closing --- line follows, so none of its keys (phase, key_files…) can be read',
        expected: 'a --- line after the last front matter key',
        got: 'no closing ---',
      });
    problems.push({
      path: '',
      message: 'no handoff-contract section found',
      expected: 'headings Key Decisions, Artifacts, Status, Deferred Items',
      got: preview(text),
    });
    return { ok: false, problems };
  }
  extra['sections'] = layout;
  const roots = [ctx.repoRoot, ...(ctx.worktrees ?? [])];
  const notes: Record<string, string> = {};
  const claims: Claims = { status: '' };

  const kd = seen.get('Key Decisions');
  if (kd) {
    const d = decisionsOf(kd);
    claims.decisions = d.decisions;
    if (d.notes !== '') notes['Key Decisions'] = d.notes;
  } else if (summary?.decisions) claims.decisions = summary.decisions;
  const art = seen.get('Artifacts');
  if (art || summary?.artifacts !== undefined || (summary?.prose.length ?? 0) > 0) {
    const a = artifactsOf(art ?? [{ body: '', line: 0 }], roots, problems);
    // A phase summary's key-files and file list add the files the Artifacts section did not name.
    if (summary?.artifacts !== undefined) {
      const s = parseArtifacts(summary.artifacts, roots, problems);
      const named = new Set(a.artifacts.map((x) => x.path));
      a.artifacts.push(...s.artifacts.filter((x) => !named.has(x.path)));
      a.prose.push(...s.prose);
      a.notes = { ...s.notes, ...a.notes };
    }
    if (summary !== undefined) a.prose.push(...summary.prose);
    claims.artifacts = a.artifacts;
    if (a.rest !== '') notes['Artifacts'] = a.rest;
    if (Object.keys(a.notes).length > 0) extra['artifactNotes'] = a.notes;
    if (a.prose.length > 0) extra['proseArtifacts'] = a.prose;
  }
  const def = seen.get('Deferred Items');
  if (def) {
    const d = deferredOf(def, problems);
    claims.deferred = d.deferred;
    if (d.notes !== '') notes['Deferred Items'] = d.notes;
  }
  // Struck-out items: files the summary withdrew, kept with no verdict (neither claimed nor said).
  if ((summary?.withdrawn.length ?? 0) > 0) extra['withdrawnArtifacts'] = summary?.withdrawn;
  if (
    summary !== undefined &&
    summary.listings.length > 0 &&
    (claims.artifacts?.length ?? 0) === 0 &&
    !('proseArtifacts' in extra || 'withdrawnArtifacts' in extra)
  ) {
    // Last resort: a summary that lists files is never recorded as claiming none.
    problems.push({
      path: 'Artifacts',
      message: `the summary lists files (${summary.listings.join('; ')}) but none could be read`,
      expected: '`path` items, a | File | table, or key-files lists',
      got: summary.listings[0] ?? '',
    });
  }
  const st = seen.get('Status');
  const status = st ? statusOf(st, problems) : null;
  const blocks = blockChecks(text, problems);
  if (problems.length > 0) return { ok: false, problems };

  const reasons: Reason[] = [];
  const lineChecks: ClaimedCheck[] = [];
  let effective: Status = 'success';
  const completion = status !== null && COMPLETION.has(status.value.toLowerCase());
  if (status) {
    claims.status = status.value;
    effective = MAXSIM_VOCABULARY.statusOf(status.value) ?? 'partial';
    if (status.detail !== '') extra['statusDetail'] = status.detail;
    if (status.notes !== '') extra['statusNotes'] = status.notes;
    // `❌ PASS` was recorded as PASS before: read, never refused (design §8), and failed.
    if (status.contradictingMark !== undefined) {
      effective = 'failed';
      const said = `${contradictionName(status.contradictingMark)} contradicts ${status.value}`;
      reasons.push(reason('MAXSIM_STATUS_MARK_CONTRADICTS', `${said}: failed`, 'Status'));
    }
    const hasList =
      status.evidenceInline !== '' || status.evidence.length > 0 || status.evidenceNotes !== '';
    if (hasList) {
      extra['evidence'] = status.evidence;
      if (status.evidenceInline !== '') extra['evidenceInline'] = status.evidenceInline;
      if (status.evidenceNotes !== '') extra['evidenceNotes'] = status.evidenceNotes;
    }
    // The Status section's first occurrence: an Evidence line's document line is after it.
    const at = st?.[0]?.line ?? 0;
    const lineOf = (t: string): number => {
      const i = bodyLines.lines.findIndex((l, k) => k >= at - 1 - offset && l.includes(t));
      return i < 0 ? at : i + 1 + offset;
    };
    const evidence = [status.evidenceInline, ...status.evidence];
    const read = evidenceLineChecks(evidence, status.value, lineOf);
    lineChecks.push(...read.checks);
    unchecked.push(...read.unchecked);
    if (unchecked.length > 0) extra['unchecked'] = unchecked;
    // The older contract explains blocked/partial in prose under the status: that is evidence.
    const hasEvidence = hasList || blocks.count > 0 || (!completion && status.notes !== '');
    if (!hasEvidence && summary !== undefined) {
      // A phase summary is not the handoff contract: its `## Status: Complete` is its own claim,
      // judged like a front-matter status by its files and checks. Holding it at partial made
      // verify contradict every honest summary that says it is complete (a false alarm).
      reasons.push(
        reason(
          'MAXSIM_NO_EVIDENCE',
          `status ${status.value} is claimed without evidence; a phase summary's status is not the handoff contract's, so its files and checks are what is judged`,
          'Status',
        ),
      );
    } else if (!hasEvidence) {
      effective = 'failed';
      reasons.push(
        reason(
          'MAXSIM_NO_EVIDENCE',
          `status ${status.value} is claimed without evidence; the handoff contract treats it as FAIL`,
          'Status',
        ),
      );
    }
    if (
      completion &&
      [...lineChecks, ...blocks.checks, ...saidChecks].some((c) => c.result === 'failed')
    ) {
      effective = 'failed';
      reasons.push(
        reason(
          'MAXSIM_FAILED_EVIDENCE',
          `status ${status.value} is claimed but its own evidence reports a failure`,
          'Status',
        ),
      );
    }
  }
  if (!status && summary?.status !== undefined) {
    // A summary's own status (front matter, opening label) is a claim, not the contract's Status
    // section: it is recorded, and judged by its own evidence (below, not by the contract sections).
    claims.status = summary.status.value;
    extra['summaryStatus'] = { written: summary.status.written, where: summary.status.where };
    const meaning = MAXSIM_VOCABULARY.statusOf(summary.status.value) ?? 'partial';
    if (meaning !== 'success') effective = worseStatus(effective, meaning);
    // `**Status:** ❌ Complete`, `Complete ❌`: the same contradiction as in a Status section.
    const mark = statusContradiction({ line: summary.status.written }, meaning, summaryMeaning);
    if (mark !== undefined) {
      effective = 'failed';
      const said = `${summary.status.where}: ${contradictionName(mark)} contradicts ${summary.status.value}`;
      reasons.push(reason('MAXSIM_STATUS_MARK_CONTRADICTS', `${said}: failed`, 'Status'));
    }
    const done = COMPLETION.has(summary.status.value.toLowerCase());
    // Only a failure an item states outright counts: a mixed or qualified one is unchecked.
    if (done && [...tableChecks, ...saidChecks].some((c) => c.result === 'failed')) {
      effective = 'failed';
      reasons.push(
        reason(
          'MAXSIM_FAILED_EVIDENCE',
          `${summary.status.where} says ${summary.status.written} but its own verification evidence reports a failure`,
          'Verification Evidence',
        ),
      );
    }
  }
  const claimed = status
    ? { value: status.value, said: `the Status section's ${status.value}`, fromOpeningLabel: false }
    : summary?.status && {
        value: summary.status.value,
        said: `${summary.status.where}'s ${summary.status.written}`,
        fromOpeningLabel: !summary.status.where.startsWith('front matter'),
      };
  const judged = judgeSelfReports(own, claimed, effective);
  effective = judged.status;
  reasons.push(...judged.reasons);
  const checks = [...lineChecks, ...blocks.checks, ...tableChecks, ...saidChecks];
  if (checks.length > 0) claims.checks = checks;
  // The contract's four sections are asked of a handoff, not of a summary: a summary that states
  // its own status is judged by that status, its evidence and its files, never held at partial
  // (and so contradicted) for sections its template does not call for.
  const judgedAsSummary = summary !== undefined && claims.status !== '';
  for (const name of MAXSIM_SECTIONS) {
    if (seen.has(name) || judgedAsSummary) continue;
    if (name === 'Artifacts' && summary?.artifacts !== undefined) continue;
    if (name === 'Key Decisions' && summary?.decisions !== undefined) continue;
    effective = worseStatus(effective, 'partial');
    reasons.push(
      reason(
        'MAXSIM_MISSING_SECTION',
        `the ${name} section is missing: the orchestrator treats the result as PARTIAL and requests resubmission`,
        name,
      ),
    );
  }
  for (const phrase of forbiddenPhrasesIn(withoutForecasts(split?.raw, preamble, sections))) {
    effective = 'failed';
    reasons.push(
      reason(
        'MAXSIM_FORBIDDEN_PHRASE',
        `"${phrase}" is not evidence (verification skill, anti-rationalization table)`,
        phrase,
      ),
    );
  }
  const missing = missingMarkers(text);
  if (missing.length > 0) {
    const gate = ctx.options?.maxsim?.requireEvidenceBlocks === true && completion;
    if (gate) {
      effective = worseStatus(effective, 'partial');
      reasons.push(
        reason(
          'MAXSIM_EVIDENCE_BLOCKS_REQUIRED',
          `evidence blocks missing (${missing.join(', ')}): the auditor's policy requires them for a completion claim`,
          missing.join(','),
        ),
      );
    } else {
      reasons.push(
        reason(
          'MAXSIM_NO_EVIDENCE_BLOCKS',
          `no verification-skill evidence blocks (${missing.join(', ')} missing); the handoff contract does not require them`,
          missing.join(','),
        ),
      );
    }
  }
  if (Object.keys(notes).length > 0) extra['notes'] = notes;
  claims.extra = extra;
  const claimProblems = claimsProblems(claims);
  if (claimProblems.length > 0) return { ok: false, problems: claimProblems };
  return { ok: true, handoff: { claims, status: effective, reasons } };
}
