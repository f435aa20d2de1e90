/**
 * Shared helpers for the Markdown-shaped seed formats (maxsim, structured, team): decoding,
 * fence-aware section splitting, bullet lists, pipe tables, repository path mapping, and the
 * small conversions every module needs (JSON-like extras, zod issues → problems, loss reports).
 * Everything here is pure and total: no helper throws on any string input.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';

import type { Problem } from '../model/errors.js';
import type { z } from 'zod';

import {
  Claims as ClaimsSchema,
  ClaimedArtifact as ClaimedArtifactSchema,
  ClaimedCheck as ClaimedCheckSchema,
  Decision as DecisionSchema,
  Deferred as DeferredSchema,
  Finding as FindingSchema,
  Insight as InsightSchema,
  Reference as ReferenceSchema,
} from '../model/record.js';
import type { LedgerRecord, Reason, Status } from '../model/record.js';

// ---------------------------------------------------------------------------------------------
// Bytes and text
// ---------------------------------------------------------------------------------------------

export type Decoded = { ok: true; text: string } | { ok: false; problems: Problem[] };

/** Strict UTF-8 (invalid bytes are a problem, not U+FFFD), BOM dropped, CRLF/CR → LF. */
export function decodeText(bytes: Uint8Array): Decoded {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return {
      ok: false,
      problems: [
        {
          path: '(bytes)',
          message: 'the handoff is not valid UTF-8',
          expected: 'UTF-8 text',
          got: 'invalid byte sequence',
        },
      ],
    };
  }
  return { ok: true, text: text.replace(/\r\n?/g, '\n') };
}

export function encodeText(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Shortens a value for a problem's `got`, so one huge input does not make a huge error. */
export function preview(value: string, max = 80): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty)';
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

// ---------------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------------

export interface Section {
  level: number;
  /** Heading text without the `#` marks and closing hashes, trimmed. */
  title: string;
  /** The heading line exactly as written. */
  heading: string;
  /** Everything after the heading line up to the next heading, trailing blank lines trimmed. */
  body: string;
  /** 1-based line number of the heading. */
  line: number;
  /** Whether a blank line separated the heading from its body (kept for faithful re-emission). */
  gap: boolean;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Parses an ATX heading line; null when the line is not one. */
export function headingOf(line: string): { level: number; title: string } | null {
  const m = HEADING.exec(line);
  if (!m) return null;
  const marks = m[1] ?? '';
  const title = (m[2] ?? '')
    .replace(/[ \t]+#+$/, '')
    .replace(/^#+$/, '')
    .trim();
  return { level: marks.length, title };
}

/**
 * Splits a document at every ATX heading outside code fences. Headings inside fences are body
 * text: a handoff that quotes a template must not grow sections from the quote.
 */
export function splitSections(
  text: string,
  maxLevel = 6,
): { preamble: string; sections: Section[] } {
  const lines = text.split('\n');
  const sections: Section[] = [];
  const pre: string[] = [];
  let current: {
    level: number;
    title: string;
    heading: string;
    line: number;
    body: string[];
  } | null = null;
  let fence: string | null = null;
  lines.forEach((line, index) => {
    const f = FENCE.exec(line);
    if (fence !== null) {
      if (f && (f[1] ?? '').startsWith(fence) && line.trim().replace(/[`~]/g, '') === '')
        fence = null;
    } else if (f) {
      fence = (f[1] ?? '```').slice(0, 3);
    } else {
      const h = headingOf(line);
      // Deeper headings stay in the body: `#### Details` belongs to its `### Findings`.
      if (h && h.level <= maxLevel) {
        if (current) sections.push(finish(current));
        current = { level: h.level, title: h.title, heading: line, line: index + 1, body: [] };
        return;
      }
    }
    (current ? current.body : pre).push(line);
  });
  if (current) sections.push(finish(current));
  return { preamble: trimBlock(pre.join('\n')), sections };
}

function finish(s: {
  level: number;
  title: string;
  heading: string;
  line: number;
  body: string[];
}): Section {
  const body = trimBlock(s.body.join('\n'));
  const gap = body !== '' && (s.body[0] ?? '').trim() === '';
  return { level: s.level, title: s.title, heading: s.heading, line: s.line, body, gap };
}

/** Drops leading and trailing blank lines (not indentation of the first line). */
export function trimBlock(text: string): string {
  return text
    .replace(/^(?:[ \t]*\n)+/, '')
    .replace(/(?:\n[ \t]*)+$/, '')
    .replace(/^[ \t]+$/, '');
}

/** Lower-cased, colon-less, emphasis-less form of a heading or label, for matching. */
export function normalizeTitle(title: string): string {
  return title.replace(/[*_`]/g, '').replace(/:\s*$/, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------------

export interface ListItem {
  /** The bullet as written (`-`, `*`, `+`, `1.`). */
  marker: string;
  /** Item text, continuation lines joined with a newline. */
  text: string;
  /** 0-based index of the item among the list items. */
  index: number;
}

const BULLET = /^[ \t]{0,3}([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;

/**
 * Reads a block as a list. Lines that are neither bullets nor indented continuations of one
 * are returned in `rest` (blank lines included, so prose keeps its paragraphs), so a caller can
 * keep or refuse them.
 */
export function parseList(body: string): { items: ListItem[]; rest: string[] } {
  const items: ListItem[] = [];
  const rest: string[] = [];
  let last: ListItem | null = null;
  for (const line of body.split('\n')) {
    const m = BULLET.exec(line);
    if (m) {
      last = { marker: m[1] ?? '-', text: (m[2] ?? '').trim(), index: items.length };
      items.push(last);
    } else if (last && /^[ \t]{2,}\S/.test(line)) {
      last.text = `${last.text}\n${line.trim()}`;
    } else if (line.trim() === '') {
      last = null;
      rest.push(line);
    } else {
      last = null;
      rest.push(line);
    }
  }
  return { items, rest };
}

/** True for a body that says there is nothing (`None`, `- none`, `n/a`, `[]`). */
export function isNone(body: string): boolean {
  return /^(?:[-*+][ \t]+)?(?:none|n\/a|\[\])\.?$/i.test(body.trim());
}

// ---------------------------------------------------------------------------------------------
// Pipe tables
// ---------------------------------------------------------------------------------------------

export interface Table {
  header: string[];
  /** The separator row exactly as written (keeps alignment colons for re-emission). */
  separator: string;
  rows: string[][];
  /** 0-based line range [start, end) of the table inside the block it was found in. */
  start: number;
  end: number;
}

const SEPARATOR_CELL = /^\s*:?-{1,}:?\s*$/;

/** Splits a pipe-table row into trimmed cells; `\|` is a literal pipe. */
export function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\' && s[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (ch === '|') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += ch;
    }
  }
  cells.push(cell.trim());
  return cells;
}

function isSeparator(line: string): boolean {
  if (!line.includes('-')) return false;
  const cells = splitRow(line);
  return cells.length > 0 && cells.every((c) => SEPARATOR_CELL.test(c));
}

function isRow(line: string): boolean {
  return line.trim().includes('|');
}

/** Finds every pipe table (header row, separator row, body rows) in a block of lines. */
export function findTables(lines: readonly string[]): Table[] {
  const tables: Table[] = [];
  let i = 0;
  while (i < lines.length - 1) {
    const head = lines[i] ?? '';
    const sep = lines[i + 1] ?? '';
    if (isRow(head) && isSeparator(sep)) {
      const rows: string[][] = [];
      let j = i + 2;
      while (j < lines.length && isRow(lines[j] ?? '') && (lines[j] ?? '').trim() !== '') {
        rows.push(splitRow(lines[j] ?? ''));
        j++;
      }
      tables.push({ header: splitRow(head), separator: sep.trim(), rows, start: i, end: j });
      i = j;
    } else {
      i++;
    }
  }
  return tables;
}

export function escapeCell(cell: string): string {
  return cell.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  separator?: string,
): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(escapeCell).join(' | ')} |`;
  const sep = separator ?? `|${header.map(() => '---').join('|')}|`;
  return [line(header), sep, ...rows.map(line)].join('\n');
}

/** Index of the first header cell whose normalized name is one of `names`, or -1. */
export function column(header: readonly string[], names: readonly string[]): number {
  return header.findIndex((h) => names.includes(normalizeTitle(h)));
}

// ---------------------------------------------------------------------------------------------
// Inline text
// ---------------------------------------------------------------------------------------------

/** Removes one layer of wrapping code/emphasis marks: `` `x` ``, `**x**`, `"x"`. */
export function unwrap(value: string): string {
  let s = value.trim();
  for (;;) {
    const m = /^(`+|\*\*|__|\*|_|"|')(.*)\1$/s.exec(s);
    if (!m || (m[2] ?? '') === '') return s;
    s = (m[2] ?? '').trim();
  }
}

/** `file.ext:line`, `file.ext:line-line` or `file.ext:Lline`; null when the text is not one. */
export function parseFileLine(
  value: string,
): { path: string; line?: number; endLine?: number } | null {
  const s = unwrap(value);
  const m =
    /^([^\s:`|]*[^\s:`|/]\.[A-Za-z0-9_+-]{1,12}|[^\s:`|]*\/[^\s:`|]+)(?::L?(\d{1,9})(?:[-–](\d{1,9}))?)?$/.exec(
      s,
    );
  if (!m) return null;
  const path = m[1] ?? '';
  const line = m[2] === undefined ? undefined : Number(m[2]);
  const endLine = m[3] === undefined ? undefined : Number(m[3]);
  if (line !== undefined && line < 1) return null;
  return {
    path,
    ...(line === undefined ? {} : { line }),
    ...(endLine === undefined || line === undefined || endLine < line ? {} : { endLine }),
  };
}

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

export type MappedPath =
  | { kind: 'repo'; path: string; as?: string }
  /** Absolute, or climbing out with `..`: not a repository path. Kept by the caller. */
  | { kind: 'outside'; raw: string }
  | { kind: 'invalid'; raw: string };

const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]/;

/**
 * Maps a path as a handoff wrote it onto a repository-relative POSIX path. Absolute paths under
 * `repoRoot` become relative (the original goes to `as`); anything that resolves outside the
 * repository is reported, never guessed at.
 */
export function mapPath(raw: string, repoRoot: string): MappedPath {
  const written = unwrap(raw);
  if (written === '' || written.includes('\0') || written.length > 4096)
    return { kind: 'invalid', raw };
  const windows = WINDOWS_ABSOLUTE.test(written);
  const slashed = windows || /^[A-Za-z]:/.test(repoRoot) ? written.replace(/\\/g, '/') : written;
  if (windows || slashed.startsWith('/')) {
    const root = posix.normalize(repoRoot.replace(/\\/g, '/')).replace(/\/+$/, '');
    const abs = posix.normalize(slashed);
    const same = windows
      ? abs.toLowerCase().startsWith(`${root.toLowerCase()}/`)
      : abs.startsWith(`${root}/`);
    if (root === '' || !same) return { kind: 'outside', raw: written };
    const rel = abs.slice(root.length + 1);
    return rel === ''
      ? { kind: 'outside', raw: written }
      : { kind: 'repo', path: rel, as: written };
  }
  const rel = posix.normalize(slashed);
  if (rel === '..' || rel.startsWith('../')) return { kind: 'outside', raw: written };
  if (rel === '.' || rel === '') return { kind: 'invalid', raw };
  const clean = rel.replace(/\/+$/, '');
  return clean === slashed
    ? { kind: 'repo', path: clean }
    : { kind: 'repo', path: clean, as: written };
}

// ---------------------------------------------------------------------------------------------
// Values, problems, statuses, losses
// ---------------------------------------------------------------------------------------------

/**
 * Makes an arbitrary parsed JSON value safe for `claims.extra`: the canonical layer accepts only
 * strings, safe integers, booleans, null, arrays and plain objects. Other numbers become their
 * decimal string (the loss of type is deliberate and documented).
 */
export function toJsonLike(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : String(value);
  if (Array.isArray(value)) return value.map(toJsonLike);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      if (v !== undefined) out[k] = toJsonLike(v);
    return out;
  }
  return null;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `verification[1].result` from a zod-style path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

export function describe(value: unknown): string {
  if (value === undefined) return '(missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(preview(value, 60));
  return String(value);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  values?: unknown[];
  expected?: unknown;
}

/** Converts zod issues to problems with `expected`/`got`, one per issue (one per unknown key). */
export function issuesToProblems(
  issues: readonly IssueLike[],
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      for (const key of issue.keys) {
        problems.push({
          path: formatPath([...path, key]),
          message: `unknown key "${key}"`,
          expected: 'no such key',
          got: describe(valueAt(input, [...issue.path, key])),
        });
      }
      continue;
    }
    const got = valueAt(input, issue.path);
    let expected: string;
    if (issue.values) expected = `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    else if (typeof issue.expected === 'string') expected = issue.expected;
    else expected = issue.message;
    problems.push({
      path: formatPath(path),
      message: got === undefined ? 'required field is missing' : issue.message,
      expected,
      got: describe(got),
    });
  }
  return problems;
}

const RANK: Record<Status, number> = { success: 0, partial: 1, blocked: 2, failed: 3 };

/** The worse of two statuses (success < partial < blocked < failed). */
export function worst(a: Status, b: Status): Status {
  return RANK[b] > RANK[a] ? b : a;
}

/**
 * Maps another system's status word onto a ledger status, for emitting a record that came from a
 * different format; falls back to the record's effective status.
 */
export function genericStatus(record: LedgerRecord): Status {
  const word = record.claims.status.trim().toLowerCase();
  if (
    [
      'pass',
      'passed',
      'success',
      'succeeded',
      'completed',
      'complete',
      'done',
      'ok',
      'accepted',
    ].includes(word)
  )
    return 'success';
  if (['partial', 'in_progress', 'in-progress', 'pending'].includes(word)) return 'partial';
  if (['blocked'].includes(word)) return 'blocked';
  if (['fail', 'failed', 'failure', 'error', 'rejected'].includes(word)) return 'failed';
  return record.observed.effectiveStatus;
}

/** What a Markdown/JSON handoff cannot carry of the ledger-authored half. */
export function observedLosses(record: LedgerRecord): string[] {
  const o = record.observed;
  const losses = ['observed.base', 'observed.candidate'];
  if (o.producer !== undefined) losses.push('observed.producer');
  if (o.branch !== undefined) losses.push('observed.branch');
  if (o.artifacts.length > 0) losses.push('observed.artifacts');
  if (o.witnesses.length > 0) losses.push('observed.witnesses');
  if (o.evidence.length > 0) losses.push('observed.evidence');
  return losses;
}

/** Claims fields that are present and carry something (non-empty arrays, defined values). */
export function presentClaims(record: LedgerRecord): Set<string> {
  const present = new Set<string>();
  for (const [key, value] of Object.entries(record.claims)) {
    if (value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    present.add(key);
  }
  return present;
}

/** Leading YAML front matter (`---` … `---`), returned raw without its fences. */
export function splitFrontMatter(text: string): { frontMatter?: string; rest: string } {
  const m = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(text);
  if (!m) return { rest: text };
  return { frontMatter: m[1] ?? '', rest: text.slice(m[0].length) };
}

/**
 * Validates finished claims against the record model, so a module can never hand `record`
 * something the canonical layer would refuse (a 2 MB summary, a path over 4096 characters).
 */
export function claimsProblems(claims: unknown): Problem[] {
  const result = ClaimsSchema.safeParse(claims);
  return result.success
    ? []
    : issuesToProblems(result.error.issues as unknown as IssueLike[], claims, ['claims']);
}

/** A reason object without an undefined `subject`. */
export function reason(code: string, message: string, subject?: string): Reason {
  return subject === undefined
    ? { code, message }
    : { code, message, subject: subject.slice(0, 4096) };
}

// The record model exports these as schemas only; the modules need their types.
export type ClaimedArtifact = z.infer<typeof ClaimedArtifactSchema>;
export type ClaimedCheck = z.infer<typeof ClaimedCheckSchema>;
export type Decision = z.infer<typeof DecisionSchema>;
export type Deferred = z.infer<typeof DeferredSchema>;
export type Finding = z.infer<typeof FindingSchema>;
export type Reference = z.infer<typeof ReferenceSchema>;
export type Insight = z.infer<typeof InsightSchema>;
