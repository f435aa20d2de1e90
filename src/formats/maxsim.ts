/**
 * MaxsimCLI handoff-contract (seed 000): Markdown with four sections — Key Decisions, Artifacts
 * (`Created|Modified|Deleted: path`), Status (`PASS|FAIL|PARTIAL` + `Evidence:`; the older
 * AGENTS.md contract's `complete|blocked|partial` too) and Deferred Items
 * (`[feature|bug|refactor|investigation] description -- reason` or `None`). Headings of any level
 * are accepted (the real phase SUMMARY uses `##`). Other sections are kept raw, in order.
 *
 * The system's rules become reasons, never refusals:
 *   - MAXSIM_MISSING_SECTION      a contract section is absent → at best partial; resubmission requested
 *   - MAXSIM_NO_EVIDENCE          a status without evidence → failed
 *   - MAXSIM_FORBIDDEN_PHRASE     one of the ten anti-rationalization phrases → failed
 *   - MAXSIM_NO_EVIDENCE_MARKERS  CLAIM/EVIDENCE/OUTPUT/VERDICT markers absent → a completion
 *                                 claim (PASS/complete) drops to partial; other statuses keep theirs
 *   - MAXSIM_PATH_OUTSIDE_REPO    an artifact path outside the repository → kept in extra; no status change
 *   - MAXSIM_FAILED_EVIDENCE      a PASS whose evidence block says FAIL → failed
 */
import type { Problem } from '../model/errors.js';
import type { Claims, LedgerRecord, Reason, Status } from '../model/record.js';
import type { Emitted, FormatModule, ParseContext, ParseResult } from './types.js';
import {
  type ClaimedArtifact,
  type ClaimedCheck,
  type Decision,
  type Deferred,
  claimsProblems,
  decodeText,
  encodeText,
  findTables,
  column,
  genericStatus,
  headingOf,
  isNone,
  isPlainObject,
  mapPath,
  normalizeTitle,
  observedLosses,
  parseList,
  presentClaims,
  preview,
  reason,
  splitFrontMatter,
  splitSections,
  trimBlock,
  unwrap,
  worst,
} from './markdown.js';

export const MAXSIM_SECTIONS = ['Key Decisions', 'Artifacts', 'Status', 'Deferred Items'] as const;
type SectionName = (typeof MAXSIM_SECTIONS)[number];

/** The ten phrases MaxsimCLI's completion hook rejects (formats/README.md), matched case-insensitively. */
export const FORBIDDEN_PHRASES = [
  'should work',
  'I already checked',
  'tests were passing before',
  'this is obviously correct',
  "I think it's fine",
  'the logic is sound',
  'nothing changed in that area',
  'it worked in my local run',
  'we can verify later',
  'this is low risk',
] as const;

export const EVIDENCE_MARKERS = ['CLAIM', 'EVIDENCE', 'OUTPUT', 'VERDICT'] as const;

const STATUS_MAP: Record<string, Status> = {
  pass: 'success',
  fail: 'failed',
  partial: 'partial',
  // the older AGENTS.md contract
  complete: 'success',
  blocked: 'blocked',
};
const COMPLETION = new Set(['pass', 'complete']);
const DEFERRED_CATEGORIES = ['feature', 'bug', 'refactor', 'investigation'];
const ACTIONS: Record<string, ClaimedArtifact['action']> = {
  created: 'created',
  modified: 'modified',
  deleted: 'deleted',
};

/** First tokens that make a backticked span a command rather than a path or a name. */
const RUNNERS = new Set([
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bun',
  'deno',
  'node',
  'tsc',
  'vitest',
  'jest',
  'mocha',
  'eslint',
  'prettier',
  'pytest',
  'python',
  'python3',
  'uv',
  'poetry',
  'tox',
  'ruff',
  'mypy',
  'go',
  'cargo',
  'make',
  'cmake',
  'ctest',
  'gradle',
  './gradlew',
  'mvn',
  'dotnet',
  'git',
  'ls',
  'cat',
  'bash',
  'sh',
  'docker',
  'bundle',
  'rake',
  'rspec',
  'php',
  'composer',
  'swift',
  'mix',
  'gh',
  'curl',
  'test',
  'just',
  'biome',
  'playwright',
  'cypress',
]);

function nameOf(title: string): { name: SectionName; inline?: string } | null {
  const t = normalizeTitle(title);
  for (const name of MAXSIM_SECTIONS) {
    if (t === name.toLowerCase()) return { name };
  }
  const m = /^status\s*:\s*(.+)$/i.exec(title.trim());
  if (m) return { name: 'Status', inline: (m[1] ?? '').trim() };
  return null;
}

// ---------------------------------------------------------------------------------------------
// Evidence: commands, evidence blocks, markers
// ---------------------------------------------------------------------------------------------

/** Commands a line of evidence names: backticked runner invocations, else bare `npm test`-like words. */
export function commandsIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const c = (m[1] ?? '').trim().replace(/^\$\s+/, '');
    const first = c.split(/\s+/)[0] ?? '';
    if (RUNNERS.has(first) && !found.includes(c)) found.push(c);
  }
  if (found.length > 0) return found;
  const bare =
    /(?:^|[\s(:;,])((?:npm|pnpm|yarn|bun)\s+(?:run\s+)?[\w:.-]+|npx\s+[\w@/.:-]+(?:\s+(?:run|--[\w-]+))*|make\s+[\w.-]+|cargo\s+(?:test|build|clippy|check)|go\s+(?:test|build|vet)(?:\s+\.\/\.\.\.)?|pytest|tsc(?:\s+--noEmit)?)(?=$|[\s),;:])/g;
  for (const m of text.matchAll(bare)) {
    const c = (m[1] ?? '').trim();
    if (!found.includes(c)) found.push(c);
  }
  return found;
}

const FAILURE =
  /\b[1-9]\d*\s+(?:failed|failing|failures?|errors?)\b|(?<!\b0\s)\bfail(?:ed|s|ing)?\b/i;
const EXIT_CODE = /\bexit(?:ed)?\s*(?:with\s*)?(?:code|status)?\s*[:=]?\s*(\d{1,3})\b/i;

function checkFromLine(line: string, status: string): ClaimedCheck[] {
  const exit = EXIT_CODE.exec(line);
  const exitCode = exit ? Number(exit[1]) : undefined;
  const failing =
    FAILURE.test(line) ||
    (exitCode !== undefined && exitCode !== 0) ||
    status.toLowerCase() === 'fail';
  return commandsIn(line).map((command) => ({
    command: command.slice(0, 4096),
    result: failing ? 'failed' : 'passed',
    ...(exitCode === undefined ? {} : { exitCode }),
    details: line,
  }));
}

interface EvidenceBlock {
  claim?: string;
  evidence?: string;
  output?: string;
  verdict?: string;
}

const MARKER_LINE = /^\s*(?:[-*+]\s+)?[*_]*(CLAIM|EVIDENCE|OUTPUT|VERDICT)[*_]*\s*:[*_]*\s*(.*)$/i;

/** The verification skill evidence blocks (CLAIM, EVIDENCE, OUTPUT, VERDICT lines), in order. */
export function evidenceBlocks(text: string): EvidenceBlock[] {
  const blocks: EvidenceBlock[] = [];
  let current: EvidenceBlock | null = null;
  let field: keyof EvidenceBlock | null = null;
  for (const line of text.split('\n')) {
    const m = MARKER_LINE.exec(line);
    if (m) {
      const key = (m[1] ?? '').toLowerCase() as keyof EvidenceBlock;
      // `Evidence:` alone (the handoff-contract label) opens no block; a CLAIM always does.
      if (key === 'claim' || (current !== null && current[key] === undefined)) {
        if (key === 'claim' || current === null) {
          current = {};
          blocks.push(current);
        }
        current[key] = (m[2] ?? '').trim();
        field = key;
        continue;
      }
      field = null;
      continue;
    }
    if (current && field && line.trim() !== '' && !headingOf(line)) {
      current[field] = `${current[field] ?? ''}\n${line}`.replace(/^\n/, '');
    } else if (line.trim() === '' || headingOf(line)) {
      field = null;
    }
  }
  return blocks;
}

export function missingMarkers(text: string): string[] {
  if (text.trim() === '') return [];
  return EVIDENCE_MARKERS.filter((m) => !new RegExp(`\\b${m}\\b[*_]*\\s*:`, 'i').test(text));
}

export function forbiddenPhrasesIn(text: string): string[] {
  const lower = text.replace(/[\u2018\u2019]/g, "'").toLowerCase();
  return FORBIDDEN_PHRASES.filter((p) => lower.includes(p.toLowerCase()));
}

// ---------------------------------------------------------------------------------------------
// Parse
// ---------------------------------------------------------------------------------------------

interface StatusParts {
  value: string;
  detail: string;
  notes: string;
  evidenceInline: string;
  evidence: string[];
  evidenceNotes: string;
}

function parseStatus(
  body: string,
  inline: string | undefined,
  problems: Problem[],
): StatusParts | null {
  const lines = body.split('\n');
  let i = 0;
  let first = inline;
  if (first === undefined) {
    while (i < lines.length && (lines[i] ?? '').trim() === '') i++;
    first = lines[i] ?? '';
    if (/^\s*[*_]*evidence[*_]*\s*:/i.test(first)) first = '';
    else i++;
  }
  const m = /^\s*(?:\*\*|`|_)?([A-Za-z]+)(?:\*\*|`|_)?(.*)$/.exec(first);
  const value = m?.[1] ?? '';
  const detail = (m?.[2] ?? '').trim();
  if (!(value.toLowerCase() in STATUS_MAP) || /^[|/]/.test(detail)) {
    problems.push({
      path: 'Status',
      message: value === '' ? 'the Status section names no status' : 'unknown status value',
      expected: 'PASS, FAIL or PARTIAL (or the older complete, blocked, partial)',
      got: preview(first),
    });
    return null;
  }
  const notes: string[] = [];
  let j = i;
  while (j < lines.length && !/^\s*[*_]*evidence[*_]*\s*:/i.test(lines[j] ?? ''))
    notes.push(lines[j++] ?? '');
  let evidenceInline = '';
  let evidence: string[] = [];
  let evidenceNotes = '';
  if (j < lines.length) {
    evidenceInline = (lines[j] ?? '').replace(/^\s*[*_]*evidence[*_]*\s*:[*_]*/i, '').trim();
    const list = parseList(lines.slice(j + 1).join('\n'));
    evidence = list.items.map((it) => it.text);
    evidenceNotes = trimBlock(list.rest.join('\n'));
  }
  // Kept with its blank lines so the block re-emits as written; dropped when it says nothing.
  const between = notes.join('\n').replace(/\s+$/, '');
  return {
    value,
    detail,
    notes: between.trim() === '' ? '' : between,
    evidenceInline,
    evidence,
    evidenceNotes,
  };
}

/** `None` is what the emitter writes for an empty list; any other spelling is kept verbatim. */
function noneNote(body: string): string {
  return body.trim() === 'None' ? '' : body.trim();
}

function parseDecisions(body: string): { decisions: Decision[]; notes: string } {
  if (isNone(body)) return { decisions: [], notes: noneNote(body) };
  const list = parseList(body);
  const decisions = list.items.map((it): Decision => {
    const cut = it.text.indexOf(': ');
    return cut > 0
      ? { text: it.text.slice(0, cut), reason: it.text.slice(cut + 2) }
      : { text: it.text };
  });
  return { decisions, notes: trimBlock(list.rest.join('\n')) };
}

interface ArtifactParts {
  artifacts: ClaimedArtifact[];
  outside: { action: string; path: string }[];
  notes: string;
  lineNotes: Record<string, string>;
}

function parseArtifacts(body: string, ctx: ParseContext, problems: Problem[]): ArtifactParts {
  const out: ArtifactParts = { artifacts: [], outside: [], notes: '', lineNotes: {} };
  if (isNone(body)) return { ...out, notes: noneNote(body) };
  const list = parseList(body);
  for (const item of list.items) {
    const m = /^([A-Za-z]+)\s*:\s*(.*)$/s.exec(item.text);
    const action = ACTIONS[(m?.[1] ?? '').toLowerCase()];
    const rest = (m?.[2] ?? '').trim();
    if (!m || action === undefined || rest === '') {
      problems.push({
        path: `Artifacts[${item.index}]`,
        message:
          action === undefined
            ? 'an artifact line must start with Created:, Modified: or Deleted:'
            : 'the artifact line names no path',
        expected: 'Created: <path> | Modified: <path> | Deleted: <path>',
        got: preview(item.text),
      });
      continue;
    }
    const bt = /^`([^`]+)`\s*(.*)$/s.exec(rest);
    const written = bt ? (bt[1] ?? '') : (rest.split(/\s+/)[0] ?? '');
    const tail = bt ? (bt[2] ?? '') : rest.slice(written.length).trim();
    if (tail !== '' || bt)
      out.lineNotes[written] = bt
        ? `\`${written}\`${tail === '' ? '' : ` ${tail}`}`
        : `${written} ${tail}`;
    const mapped = mapPath(written, ctx.repoRoot);
    const actionWord = m[1] ?? '';
    if (mapped.kind === 'repo') {
      out.artifacts.push({
        path: mapped.path,
        action,
        ...(mapped.as === undefined ? {} : { as: mapped.as }),
      });
    } else if (mapped.kind === 'outside') {
      out.outside.push({ action: actionWord, path: written });
    } else {
      problems.push({
        path: `Artifacts[${item.index}]`,
        message: 'not a usable path',
        expected: 'a file path',
        got: preview(written),
      });
    }
  }
  // The real phase SUMMARY lists artifacts as a `| File | … |` table: they are `touched`.
  const restLines = list.rest;
  for (const table of findTables(restLines)) {
    const col = column(table.header, ['file', 'path', 'files']);
    if (col < 0) continue;
    for (const row of table.rows) {
      const mapped = mapPath(row[col] ?? '', ctx.repoRoot);
      if (mapped.kind === 'repo')
        out.artifacts.push({
          path: mapped.path,
          action: 'touched',
          ...(mapped.as === undefined ? {} : { as: mapped.as }),
        });
      else if (mapped.kind === 'outside') out.outside.push({ action: 'Touched', path: mapped.raw });
    }
  }
  out.notes = trimBlock(restLines.join('\n'));
  return out;
}

function parseDeferred(body: string, problems: Problem[]): { deferred: Deferred[]; notes: string } {
  if (isNone(body)) return { deferred: [], notes: noneNote(body) };
  const list = parseList(body);
  const deferred: Deferred[] = [];
  for (const item of list.items) {
    const m = /^\[([^\]]*)\]\s*(.*)$/s.exec(item.text);
    const category = (m?.[1] ?? '').trim();
    if (!m || !DEFERRED_CATEGORIES.includes(category.toLowerCase())) {
      problems.push({
        path: `Deferred Items[${item.index}]`,
        message: m
          ? 'unknown deferred-item category'
          : 'a deferred item must start with its [category]',
        expected: '[feature|bug|refactor|investigation] description -- reason',
        got: preview(m ? `[${category}]` : item.text),
      });
      continue;
    }
    const text = m[2] ?? '';
    const cut = text.indexOf(' -- ');
    deferred.push(
      cut >= 0
        ? { category, description: text.slice(0, cut).trim(), reason: text.slice(cut + 4).trim() }
        : { category, description: text.trim() },
    );
  }
  return { deferred, notes: trimBlock(list.rest.join('\n')) };
}

function parse(bytes: Uint8Array, ctx: ParseContext): ParseResult {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  const text = decoded.text;
  const { frontMatter, rest } = splitFrontMatter(text);
  const { preamble, sections } = splitSections(rest);
  const problems: Problem[] = [];
  const extra: Record<string, unknown> = {};
  if (frontMatter !== undefined) extra.frontMatter = frontMatter;
  if (preamble !== '') extra.preamble = preamble;

  const layout: { heading: string; body?: string; gap?: boolean }[] = [];
  const seen = new Map<SectionName, { body: string; inline?: string }>();
  for (const s of sections) {
    const known = nameOf(s.title);
    if (known && seen.has(known.name)) {
      problems.push({
        path: known.name,
        message: `the ${known.name} section appears more than once`,
        expected: 'one section',
        got: `another at line ${s.line}`,
      });
      continue;
    }
    if (known) {
      seen.set(
        known.name,
        known.inline === undefined ? { body: s.body } : { body: s.body, inline: known.inline },
      );
      layout.push({ heading: s.heading, ...(s.gap ? { gap: true } : {}) });
    } else {
      layout.push({ heading: s.heading, body: s.body, ...(s.gap ? { gap: true } : {}) });
    }
  }
  if (seen.size === 0) {
    return {
      ok: false,
      problems: [
        ...problems,
        {
          path: '(document)',
          message: 'no handoff-contract section found',
          expected: 'headings Key Decisions, Artifacts, Status, Deferred Items',
          got: preview(text),
        },
      ],
    };
  }
  extra.sections = layout;

  const notes: Record<string, string> = {};
  const claims: Claims = { status: '' };
  const reasons: Reason[] = [];

  const kd = seen.get('Key Decisions');
  if (kd) {
    const d = parseDecisions(kd.body);
    claims.decisions = d.decisions;
    if (d.notes !== '') notes['Key Decisions'] = d.notes;
  }
  const art = seen.get('Artifacts');
  if (art) {
    const a = parseArtifacts(art.body, ctx, problems);
    claims.artifacts = a.artifacts;
    if (a.notes !== '') notes.Artifacts = a.notes;
    if (Object.keys(a.lineNotes).length > 0) extra.artifactLines = a.lineNotes;
    if (a.outside.length > 0) {
      extra.outsideRepoArtifacts = a.outside;
      for (const o of a.outside) {
        reasons.push(
          reason(
            'MAXSIM_PATH_OUTSIDE_REPO',
            `artifact ${o.path} is outside the repository ${ctx.repoRoot}; kept as written in claims.extra.outsideRepoArtifacts`,
            o.path,
          ),
        );
      }
    }
  }
  const def = seen.get('Deferred Items');
  if (def) {
    const d = parseDeferred(def.body, problems);
    claims.deferred = d.deferred;
    if (d.notes !== '') notes['Deferred Items'] = d.notes;
  }
  const st = seen.get('Status');
  const status = st ? parseStatus(st.body, st.inline, problems) : null;
  const blocks = evidenceBlocks(text);
  const checks: ClaimedCheck[] = [];
  blocks.forEach((b, i) => {
    if (b.verdict === undefined) return;
    const verdict = unwrap(b.verdict.split('\n')[0] ?? '').toUpperCase();
    const result =
      verdict === 'PASS'
        ? 'passed'
        : verdict === 'FAIL'
          ? 'failed'
          : verdict === 'SKIPPED'
            ? 'skipped'
            : null;
    if (result === null) {
      problems.push({
        path: `evidenceBlocks[${i}].VERDICT`,
        message: 'unknown verdict',
        expected: 'PASS, FAIL or SKIPPED',
        got: preview(b.verdict),
      });
      return;
    }
    const command = commandsIn(b.evidence ?? '')[0];
    const details = [b.claim, b.output]
      .filter((x): x is string => x !== undefined && x !== '')
      .join('\n');
    checks.push({
      ...(command === undefined ? {} : { command }),
      result,
      ...(details === '' ? {} : { details }),
    });
  });
  if (problems.length > 0) return { ok: false, problems };

  let effective: Status = 'success';
  if (status) {
    claims.status = status.value;
    effective = STATUS_MAP[status.value.toLowerCase()] ?? 'partial';
    if (status.detail !== '') extra.statusDetail = status.detail;
    if (status.notes !== '') extra.statusNotes = status.notes;
    if (status.evidenceInline !== '' || status.evidence.length > 0 || status.evidenceNotes !== '') {
      extra.evidence = status.evidence;
      if (status.evidenceInline !== '') extra.evidenceInline = status.evidenceInline;
      if (status.evidenceNotes !== '') extra.evidenceNotes = status.evidenceNotes;
    }
    for (const line of [status.evidenceInline, ...status.evidence])
      if (line !== '') checks.push(...checkFromLine(line, status.value));
    const hasEvidence =
      status.evidenceInline !== '' ||
      status.evidence.length > 0 ||
      status.evidenceNotes !== '' ||
      blocks.length > 0 ||
      (!COMPLETION.has(status.value.toLowerCase()) && status.notes !== '');
    if (!hasEvidence) {
      effective = 'failed';
      reasons.push(
        reason(
          'MAXSIM_NO_EVIDENCE',
          `status ${status.value} is claimed without evidence; the handoff contract treats it as FAIL`,
          'Status',
        ),
      );
    }
    if (COMPLETION.has(status.value.toLowerCase()) && checks.some((c) => c.result === 'failed')) {
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
  if (checks.length > 0) claims.checks = checks;
  for (const name of MAXSIM_SECTIONS) {
    if (!seen.has(name)) {
      effective = worst(effective, 'partial');
      reasons.push(
        reason(
          'MAXSIM_MISSING_SECTION',
          `the ${name} section is missing: the orchestrator treats the result as PARTIAL and requests resubmission`,
          name,
        ),
      );
    }
  }
  for (const phrase of forbiddenPhrasesIn(text)) {
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
    const completion = status !== null && COMPLETION.has(status.value.toLowerCase());
    if (completion) effective = worst(effective, 'partial');
    reasons.push(
      reason(
        'MAXSIM_NO_EVIDENCE_MARKERS',
        `evidence markers missing: ${missing.join(', ')}${completion ? '; a completion claim without evidence blocks is not accepted as complete' : ''}`,
        missing.join(','),
      ),
    );
  }
  if (Object.keys(notes).length > 0) extra.notes = notes;
  claims.extra = extra;
  const claimProblems = claimsProblems(claims);
  if (claimProblems.length > 0) return { ok: false, problems: claimProblems };
  return { ok: true, handoff: { claims, status: effective, reasons } };
}

// ---------------------------------------------------------------------------------------------
// Detect
// ---------------------------------------------------------------------------------------------

function detect(bytes: Uint8Array, fileName?: string): number {
  try {
    const decoded = decodeText(bytes.subarray(0, 1 << 20));
    if (!decoded.ok) return 0;
    const text = decoded.text;
    if (/^\s*[[{]/.test(text)) return 0;
    const names = new Set<string>();
    let teamish = false;
    for (const s of splitSections(splitFrontMatter(text).rest).sections) {
      const k = nameOf(s.title);
      if (k) names.add(k.name);
      if (
        /^status\s*:\s*(success|partial|failed)\b/i.test(s.title) ||
        /\bresult$|結果$/i.test(s.title)
      )
        teamish = true;
    }
    if (
      /^#{1,6}\s+handoff\s*$/im.test(text) &&
      /^status:\s*(completed|blocked|failed)\s*$/im.test(text)
    )
      return names.size >= 3 ? 0.3 : 0.05;
    let score = [0, 0.25, 0.5, 0.8, 0.95][names.size] ?? 0;
    if (teamish) score = Math.min(score, 0.3);
    if (names.size > 0 && fileName !== undefined && /summary\.md$/i.test(fileName))
      score = Math.max(score, 0.6);
    return score;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Emit
// ---------------------------------------------------------------------------------------------

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function emit(record: LedgerRecord): Emitted {
  const own = record.format === 'maxsim';
  const claims = record.claims;
  const extra = own && isPlainObject(claims.extra) ? claims.extra : {};
  const notes = isPlainObject(extra.notes) ? extra.notes : {};
  const losses: string[] = [];
  const lineNotes = isPlainObject(extra.artifactLines) ? extra.artifactLines : {};

  const body: Record<SectionName, () => string> = {
    'Key Decisions': () => {
      const lines = (claims.decisions ?? []).map((d) =>
        `- ${d.reason === undefined ? d.text : `${d.text}: ${d.reason}`}`.replace(/\n/g, '\n  '),
      );
      const n = str(notes['Key Decisions']);
      return [lines.join('\n'), n].filter((x) => x !== '').join('\n\n') || 'None';
    },
    Artifacts: () => {
      const lines: string[] = [];
      (claims.artifacts ?? []).forEach((a, i) => {
        if (own && a.action === 'touched') return; // came from a table kept in notes
        const action =
          a.action === 'touched' ? 'Modified' : a.action[0]?.toUpperCase() + a.action.slice(1);
        if (a.action === 'touched') losses.push(`claims.artifacts[${i}].action`);
        if (a.sha256 !== undefined) losses.push(`claims.artifacts[${i}].sha256`);
        const written = a.as ?? a.path;
        const note = lineNotes[written];
        lines.push(`- ${action}: ${typeof note === 'string' ? note : written}`);
      });
      if (Array.isArray(extra.outsideRepoArtifacts)) {
        for (const o of extra.outsideRepoArtifacts) {
          if (isPlainObject(o) && o.action !== 'Touched') {
            const note = lineNotes[str(o.path)];
            lines.push(`- ${str(o.action)}: ${typeof note === 'string' ? note : str(o.path)}`);
          }
        }
      }
      const n = str(notes.Artifacts);
      return [lines.join('\n'), n].filter((x) => x !== '').join('\n\n') || 'None';
    },
    Status: () => {
      let value = claims.status;
      if (!own || value === '') {
        const s = genericStatus(record);
        value = s === 'success' ? 'PASS' : s === 'partial' ? 'PARTIAL' : 'FAIL';
        if (value !== claims.status) losses.push('claims.status');
      }
      const detail = str(extra.statusDetail);
      const parts = [detail === '' ? value : `${value} ${detail}`];
      const sn = str(extra.statusNotes);
      if (sn !== '') parts[0] = `${parts[0]}\n${sn}`;
      const evidence = own ? strings(extra.evidence) : (claims.checks ?? []).map(renderCheck);
      const inline = str(extra.evidenceInline);
      const en = str(extra.evidenceNotes);
      if (evidence.length > 0 || inline !== '' || en !== '' || Array.isArray(extra.evidence)) {
        const ev = [
          `Evidence:${inline === '' ? '' : ` ${inline}`}`,
          ...evidence.map((e) => `- ${e.replace(/\n/g, '\n  ')}`),
        ].join('\n');
        parts.push([ev, en].filter((x) => x !== '').join('\n\n'));
      }
      return parts.join('\n\n');
    },
    'Deferred Items': () => {
      const lines = (claims.deferred ?? []).map(
        (d) =>
          `- [${d.category}] ${d.description}${d.reason === undefined ? '' : ` -- ${d.reason}`}`,
      );
      const n = str(notes['Deferred Items']);
      return [lines.join('\n'), n].filter((x) => x !== '').join('\n\n') || 'None';
    },
  };

  const out: string[] = [];
  if (typeof extra.frontMatter === 'string') out.push(`---\n${extra.frontMatter}\n---`);
  if (typeof extra.preamble === 'string') out.push(extra.preamble);
  const layout = Array.isArray(extra.sections) ? extra.sections.filter(isPlainObject) : [];
  const emitted = new Set<SectionName>();
  for (const entry of layout) {
    const heading = str(entry.heading);
    const known = nameOf(headingOf(heading)?.title ?? '');
    if (known && !emitted.has(known.name)) {
      emitted.add(known.name);
      let text = body[known.name]();
      if (known.inline !== undefined) {
        // `### Status: PASS` — the value lives in the heading
        text = text.includes('\n') ? text.slice(text.indexOf('\n') + 1).replace(/^\n/, '') : '';
      }
      out.push(text === '' ? heading : `${heading}\n${entry.gap === true ? '\n' : ''}${text}`);
    } else if (!known) {
      const b = str(entry.body);
      out.push(b === '' ? heading : `${heading}\n${entry.gap === true ? '\n' : ''}${b}`);
    }
  }
  for (const name of MAXSIM_SECTIONS) {
    if (!emitted.has(name) && (!own || layout.length === 0))
      out.push(`### ${name}\n${body[name]()}`);
  }

  const present = presentClaims(record);
  for (const key of [
    'summary',
    'task',
    'run',
    'attempt',
    'intent',
    'reworkOf',
    'assumptions',
    'openQuestions',
    'findings',
    'references',
    'confidence',
    'nextStep',
    'insights',
    'anchors',
  ]) {
    if (present.has(key)) losses.push(`claims.${key}`);
  }
  // Own records: checks are derived from the evidence text, which is re-emitted verbatim.
  if (!own && present.has('extra')) losses.push('claims.extra');
  losses.push(...observedLosses(record));
  return { bytes: encodeText(`${out.join('\n\n')}\n`), losses: [...new Set(losses)] };
}

function renderCheck(c: ClaimedCheck): string {
  const what = c.command === undefined ? 'check' : `\`${c.command}\``;
  const exit = c.exitCode === undefined ? '' : ` (exit code ${c.exitCode})`;
  return `${what}: ${c.result}${exit}${c.details === undefined ? '' : ` — ${c.details.replace(/\n/g, ' ')}`}`;
}

export const maxsim: FormatModule = { name: 'maxsim', detect, parse, emit };
