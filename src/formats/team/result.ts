/**
 * A subagent-contract result (`## <role> Result`, `### Status` SUCCESS|PARTIAL|FAILED, Summary,
 * Findings, Key References, Confidence; the upstream reference's Japanese headings alike) →
 * claims. The places its Findings and Key References name become claims that verify checks
 * (places.ts); the sections, the status and the contract's rules (result-rules.ts) are read here.
 */
import type { Problem } from '../../model/errors.js';
import type { Claims, Status } from '../../model/record.js';
import type { ParseContext, ParseResult } from '../contract.js';
import { claimsProblems } from '../kit/claims.js';
import { asCommonMarkReads } from '../kit/commonmark.js';
import { duplicateSection } from '../kit/problems.js';
import { headingOf, normalizeTitle, splitSections } from '../kit/markdown.js';
import { preview, trimBlock } from '../kit/text.js';
import { filesIn } from './files-sections.js';
import { extractInsights, insightReferences } from './insights.js';
import { issuesIn } from './issues.js';
import {
  claimsOfFindings,
  filesAction,
  foundIn,
  listedFindings,
  referencesIn,
  type Found,
} from './places.js';
import { listedReferences, placelessRows, unsureWhy } from './reference-list.js';
import { resultRules } from './result-rules.js';
import { lineIn, type Unchecked } from './unchecked.js';
import { failureBeside, failureBesideWhy } from '../kit/failure-beside.js';
import { RESULT_VOCABULARY, keyOf, roleOf, type Key } from './vocabulary.js';
import {
  contradictionName,
  joinedLines,
  statusContradiction,
  warningMark,
  withoutStatusMark,
} from '../kit/status-mark.js';

/** Sections that say where the code stands (English and the reference's Japanese headings). */
const STANDING =
  /^(blockers|uncertaint|error details|attempted actions|root cause|ブロッカー|不確実|エラー詳細|試行したアクション|根本原因)/i;
const CONFIDENCE = /^\s*[*_]*(\d{1,4})[*_]*(\s*(?:\/\s*100|%)?\s*(?:[-–—:]\s*|\s+|$))([\s\S]*)$/;

export function parseResult(source: string, ctx: ParseContext): ParseResult {
  const text = asCommonMarkReads(source);
  const roots = [ctx.repoRoot, ...(ctx.worktrees ?? [])];
  const { preamble, sections } = splitSections(text, 3);
  const problems: Problem[] = [];
  const start = sections.findIndex((s) => s.level <= 2 && roleOf(s.title) !== null);
  if (start < 0 && !sections.some((s) => keyOf(s.title)?.key === 'status')) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: 'no subagent result found',
          expected: 'a "## <role> Result" heading and a "### Status" section',
          got: preview(text),
        },
      ],
    };
  }
  const role = start >= 0 ? (roleOf(sections[start]?.title ?? '') ?? '') : '';
  const extra: Record<string, unknown> = { input: 'result' };
  if (role !== '') extra['role'] = role;
  if (preamble !== '') extra['preamble'] = preamble;

  const layout: Record<string, unknown>[] = [];
  const got = new Map<Key, { body: string; inline?: string }>();
  let ended = false;
  sections.forEach((s, i) => {
    const gap = s.gap ? { gap: true } : {};
    const k = keyOf(s.title);
    if (i > start && start >= 0 && s.level <= 2 && roleOf(s.title) !== null) ended = true;
    if (ended || i === start || !k || (i < start && start >= 0)) {
      layout.push({ heading: s.heading, body: s.body, ...gap });
      return;
    }
    if (got.has(k.key)) {
      problems.push(duplicateSection(s.title, s.title, s.line));
      return;
    }
    got.set(k.key, k.inline === undefined ? { body: s.body } : { body: s.body, inline: k.inline });
    // Findings and Key References stay verbatim (free-form); their claims are derived from them.
    if (k.key === 'findings' || k.key === 'references')
      layout.push({ heading: s.heading, body: s.body, ...gap });
    else
      layout.push({
        heading: s.heading,
        ...(k.inline === undefined ? {} : { inline: true }),
        ...gap,
      });
  });
  extra['sections'] = layout;

  const claims: Claims = { status: '' };
  let status: Status = 'partial';
  /** A failure said in the status's own words beside a pass (round sixteen): said, with its line. */
  const statusSaid: Unchecked[] = [];
  const st = got.get('status');
  if (!st) {
    problems.push({
      path: 'Status',
      message: 'the Status section is missing',
      expected: 'SUCCESS, PARTIAL or FAILED',
      got: '(missing)',
    });
  } else {
    const lines = (st.inline ?? st.body).split('\n');
    const first = st.inline ?? lines.find((l) => l.trim() !== '') ?? '';
    const m = /^\s*[*_`]*([A-Za-z]+)[*_`]*\s*(.*)$/.exec(withoutStatusMark(first));
    const value = m?.[1] ?? '';
    const meaning = RESULT_VOCABULARY.statusOf(value);
    // `❌ SUCCESS`, `SUCCESS ❌`, `SUCCESS` over `FAILED`: which the agent meant is not this
    // reader's to choose. The section's lines after the word's own: joined to it, then the rest.
    const after =
      st.inline === undefined ? lines.slice(lines.indexOf(first) + 1) : st.body.split('\n');
    const joined = st.inline === undefined ? joinedLines(after, 0) : [];
    const said = { line: first, joined, alone: after.slice(joined.length) };
    const mark =
      meaning === undefined
        ? undefined
        : statusContradiction(said, meaning, RESULT_VOCABULARY.statusOf);
    if (meaning === undefined || /^[|/]/.test(m?.[2] ?? '')) {
      problems.push({
        path: 'Status',
        message: 'unknown status value',
        expected: 'SUCCESS, PARTIAL or FAILED',
        got: preview(first),
      });
    } else if (mark !== undefined) {
      problems.push({
        path: 'Status',
        message: `${contradictionName(mark)} contradicts ${value}`,
        expected:
          'SUCCESS, PARTIAL or FAILED, with no mark or one that agrees (✅ SUCCESS, ❌ FAILED)',
        got: preview(first),
      });
    } else {
      claims.status = value;
      status = RESULT_VOCABULARY.statusOf(value) ?? 'partial';
      const detail = (m?.[2] ?? '').trim();
      if (detail !== '') extra['statusDetail'] = detail;
      const notes =
        st.inline === undefined
          ? trimBlock(lines.slice(lines.indexOf(first) + 1).join('\n'))
          : st.body;
      if (notes !== '') extra['statusNotes'] = notes;
      // `SUCCESS — 3 tests failing`, or a paragraph `2 of 40 tests fail` under it: said.
      for (const words of status === 'success' ? [detail, notes] : []) {
        const beside = failureBeside(words);
        if (beside !== undefined)
          statusSaid.push({
            line: lineIn(text, words.split('\n')[0] ?? words),
            text: words.slice(0, 300),
            why: `under Status, ${failureBesideWhy(value, beside)}`,
          });
      }
      // `SUCCESS ⚠️`, `SUCCESS 🟥`: a warning mark on the line is read with it (round seventeen).
      const warning = status === 'success' ? warningMark(first) : undefined;
      if (warning !== undefined)
        statusSaid.push({
          line: lineIn(text, first),
          text: first.slice(0, 300),
          why: `under Status, ${value} with a warning mark (${warning}): the word alone is not what the page shows`,
        });
    }
  }
  const conf = got.get('confidence');
  if (conf) {
    const whole =
      conf.inline === undefined
        ? conf.body
        : [conf.inline, conf.body].filter((x) => x !== '').join('\n');
    const m = CONFIDENCE.exec(whole);
    const value = m ? Number(m[1]) : NaN;
    if (!m || value > 100) {
      problems.push({
        path: 'Confidence',
        message: 'confidence must be a number 0-100 with a justification',
        expected: '[0-100] - [justification]',
        got: preview(whole),
      });
    } else {
      const justification = trimBlock(m[3] ?? '');
      claims.confidence = { value, ...(justification === '' ? {} : { justification }) };
      extra['confidenceSeparator'] = m[2] ?? '';
    }
  }
  if (problems.length > 0) return { ok: false, problems };

  const sum = got.get('summary');
  if (sum) claims.summary = [sum.inline ?? '', sum.body].filter((x) => x !== '').join('\n');
  const fin = got.get('findings');
  const issues = layout
    .filter((l) => /^(issues|問題)/i.test(headingOf(String(l['heading']))?.title ?? ''))
    .map((l) => issuesIn(String(l['body'] ?? ''), roots, text));
  const found: Found[] = [
    ...(fin ? foundIn(fin.body, roots) : []),
    ...issues.flatMap((i) => i.found),
  ];
  // Files Created / Files Modified inside Findings (the contract's place), or as sections of
  // their own beside it (`### Files Modified`): either way the agent's files, never dropped.
  const filesSections = layout
    .filter((l) => filesAction(headingOf(String(l['heading']))?.title ?? '') !== undefined)
    .map((l) => `${String(l['heading'])}\n${String(l['body'] ?? '')}`);
  const files = filesIn([fin?.body ?? '', ...filesSections].join('\n'), roots, text);
  if (files.artifacts.length > 0) claims.artifacts = files.artifacts;
  const refs = got.get('references');
  const listedRefs = refs
    ? listedReferences(refs.body, roots, text)
    : { references: [], unchecked: [] };
  const references = [
    ...(refs ? referencesIn(refs.body, roots) : []),
    ...listedRefs.references,
    ...files.references,
  ];
  // Findings' prose, then the Summary's: a place either names is claimed once.
  const listed = fin
    ? listedFindings(fin.body, roots, [...found, ...references])
    : { found: [], markedElsewhere: 0, unsure: [] };
  found.push(...listed.found);
  const summarized = listedFindings(
    claims.summary ?? '',
    roots,
    [...found, ...references],
    'Summary',
  );
  found.push(...summarized.found);
  // Blockers, Uncertainty and a failed result's Error Details, Attempted Actions and Root Cause
  // Analysis say where the code stands ("`src/x.ts:40` still throws"): claims about the code as
  // it is, read like a Findings paragraph (issue 20: a place there was neither checked nor said).
  // Recovery Options, like Next Steps, are work not done yet: kept as written.
  const standing = layout
    .filter((l) => STANDING.test(headingOf(String(l['heading']))?.title ?? ''))
    .map((l) =>
      listedFindings(
        String(l['body'] ?? ''),
        roots,
        [...found, ...references],
        (headingOf(String(l['heading']))?.title ?? '').trim(),
      ),
    );
  for (const s of standing) found.push(...s.found);
  const settled = claimsOfFindings(found, references);
  references.push(...settled.references);
  const noted = insightReferences(text, roots, [...found, ...references]);
  references.push(...noted.references);
  if (refs || references.length > 0) claims.references = references;
  if (settled.findings.length > 0) claims.findings = settled.findings;
  const next = got.get('next');
  if (next) claims.nextStep = [next.inline ?? '', next.body].filter((x) => x !== '').join('\n');
  const insights = extractInsights(text, ctx.now, role === '' ? undefined : role);
  if (insights.length > 0) claims.insights = insights;
  const unchecked: Unchecked[] = [
    ...[
      ...listed.unsure,
      ...summarized.unsure,
      ...standing.flatMap((s) => s.unsure),
      ...noted.unsure,
    ].map((u) => ({
      line: lineIn(text, u.text),
      text: u.token,
      why: unsureWhy(u.token),
    })),
    ...statusSaid,
    ...issues.flatMap((i) => i.unchecked),
    ...files.unchecked,
    ...listedRefs.unchecked,
    ...(refs ? placelessRows(refs.body, text) : []),
  ];
  // A marker inside Findings is read as prose and as a marker: said once.
  const said = unchecked.filter(
    (u, i) => unchecked.findIndex((v) => v.line === u.line && v.text === u.text) === i,
  );
  if (said.length > 0) extra['unchecked'] = said;
  // Described, not claimed: kept with their lines, no verdict (files-sections.ts).
  if (files.described.length > 0) extra['filesRows'] = files.described;
  if (files.withdrawn.length > 0) extra['withdrawnArtifacts'] = files.withdrawn;
  claims.extra = extra;

  const titles = layout.map((l) => normalizeTitle(headingOf(String(l['heading']))?.title ?? ''));
  const unverified =
    settled.unverified +
    listed.markedElsewhere +
    summarized.markedElsewhere +
    standing.reduce((n, s) => n + s.markedElsewhere, 0) +
    noted.markedElsewhere;
  const rules = resultRules(claims, status, new Set(got.keys()), titles, text, unverified);
  const cp = claimsProblems(claims);
  if (cp.length > 0) return { ok: false, problems: cp };
  return { ok: true, handoff: { claims, status: rules.status, reasons: rules.reasons } };
}
