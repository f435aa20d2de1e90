/**
 * The text layer of the KXM Markdown view (`kxm.doc.v1`): front matter (a small YAML subset)
 * and the bullet sections of `docs/templates/handoff.md`, read into a neutral structure and
 * written back. It knows nothing about what the labels mean; `kxm.ts` maps them onto claims.
 * Pure: text in, structure out; never throws on any input.
 */
import type { Problem } from '../model/errors.js';

/** A front-matter value: the YAML subset the kxm.doc.v1 template uses. */
export type FrontValue = string | boolean | null | FrontValue[] | { [key: string]: FrontValue };
export type FrontMatter = { [key: string]: FrontValue };

export interface DocBullet {
  /** `Workflow run ID` for `- **Workflow run ID:** ...`; null for an unlabeled bullet. */
  label: string | null;
  /** The text after the label, continuation lines joined with a space. */
  value: string;
  /** Indented sub-bullets, as text. */
  children: string[];
}

export interface DocSection {
  heading: string;
  level: number;
  bullets: DocBullet[];
  /** Non-bullet lines (notes, call-outs), kept verbatim so nothing is lost. */
  text: string[];
}

export interface KxmDocText {
  frontMatter: FrontMatter;
  title: string | null;
  /** Lines between the title and the first `##` section (the template's call-out). */
  preamble: string[];
  sections: DocSection[];
}

export type ReadDocResult = { ok: true; doc: KxmDocText } | { ok: false; problems: Problem[] };

const FRONT_FENCE = /^---\s*$/;

/** Splits `---` front matter from the body; null when the text does not start with it. */
export function splitFrontMatter(text: string): { front: string[]; body: string[] } | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines.length === 0 || !FRONT_FENCE.test(lines[0] ?? '')) return null;
  const end = lines.findIndex((l, i) => i > 0 && FRONT_FENCE.test(l));
  if (end < 0) return null;
  return { front: lines.slice(1, end), body: lines.slice(end + 1) };
}

/** Removes a trailing ` # comment` outside quotes. */
function stripComment(raw: string): string {
  let quote: string | null = null;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quote !== null) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(raw[i - 1] ?? '')))
      return raw.slice(0, i).trimEnd();
  }
  return raw.trimEnd();
}

function parseScalar(raw: string): { ok: true; value: FrontValue } | { ok: false; why: string } {
  const s = raw.trim();
  if (s === '' || s === '~' || s === 'null') return { ok: true, value: null };
  if (s === 'true') return { ok: true, value: true };
  if (s === 'false') return { ok: true, value: false };
  if (s.startsWith('"')) {
    if (!s.endsWith('"') || s.length < 2) return { ok: false, why: 'an unterminated "string"' };
    try {
      const v: unknown = JSON.parse(s);
      return typeof v === 'string' ? { ok: true, value: v } : { ok: false, why: 'a string' };
    } catch {
      return { ok: false, why: 'a valid double-quoted string' };
    }
  }
  if (s.startsWith("'")) {
    if (!s.endsWith("'") || s.length < 2) return { ok: false, why: "an unterminated 'string'" };
    return { ok: true, value: s.slice(1, -1).replace(/''/g, "'") };
  }
  if (s.startsWith('[')) {
    if (!s.endsWith(']')) return { ok: false, why: 'an unterminated [list]' };
    const inner = s.slice(1, -1).trim();
    if (inner === '') return { ok: true, value: [] };
    const items: FrontValue[] = [];
    for (const part of splitFlow(inner)) {
      const item = parseScalar(part);
      if (!item.ok) return item;
      items.push(item.value);
    }
    return { ok: true, value: items };
  }
  if (s.startsWith('{'))
    return { ok: false, why: 'a scalar or [list] (flow maps are not supported)' };
  // Plain scalars (numbers included) stay strings: the record keeps no floats.
  return { ok: true, value: s };
}

function splitFlow(inner: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (quote !== null) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ',') {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

const KEY_LINE = /^( *)([A-Za-z_][A-Za-z0-9_-]*)\s*:(.*)$/;

/** Reads the front-matter YAML subset: scalars, flow lists, one level of nested maps. */
export function readFrontMatter(
  lines: string[],
): { ok: true; value: FrontMatter } | { ok: false; problems: Problem[] } {
  const out: FrontMatter = {};
  const problems: Problem[] = [];
  let parent: { key: string; map: FrontMatter } | null = null;
  lines.forEach((rawLine, index) => {
    const line = stripComment(rawLine);
    if (line.trim() === '') return;
    const m = KEY_LINE.exec(line);
    if (m === null) {
      problems.push({
        path: 'frontMatter',
        message: `front matter line ${index + 2} is not \`key: value\``,
        expected: 'key: value',
        got: rawLine.slice(0, 80),
      });
      return;
    }
    const indent = (m[1] ?? '').length;
    const key = m[2] ?? '';
    const rest = (m[3] ?? '').trim();
    const target: FrontMatter = indent > 0 && parent !== null ? parent.map : out;
    const path =
      indent > 0 && parent !== null ? `frontMatter.${parent.key}.${key}` : `frontMatter.${key}`;
    if (indent > 0 && parent === null) {
      problems.push({
        path,
        message: 'indented key outside a map',
        expected: 'a top-level key',
        got: rawLine.slice(0, 80),
      });
      return;
    }
    if (indent === 0) parent = null;
    if (Object.hasOwn(target, key)) {
      problems.push({ path, message: 'duplicate key', expected: 'each key once', got: key });
      return;
    }
    if (rest === '' && indent === 0) {
      const map: FrontMatter = {};
      Object.defineProperty(target, key, {
        value: map,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      parent = { key, map };
      return;
    }
    const scalar = parseScalar(rest);
    if (!scalar.ok) {
      problems.push({
        path,
        message: `value is not ${scalar.why}`,
        expected: scalar.why,
        got: rest.slice(0, 80),
      });
      return;
    }
    Object.defineProperty(target, key, {
      value: scalar.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out };
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^([ \t]*)[-*+]\s+(.*)$/;
const LABEL = /^\*\*(.+?)\*\*\s*(.*)$/;

function splitLabel(content: string): { label: string | null; value: string } {
  const m = LABEL.exec(content);
  if (m === null) return { label: null, value: content.trim() };
  let label = (m[1] ?? '').trim();
  let value = (m[2] ?? '').trim();
  if (label.endsWith(':')) label = label.slice(0, -1).trim();
  else if (value.startsWith(':')) value = value.slice(1).trim();
  else return { label: null, value: content.trim() };
  return { label, value };
}

/** Reads a whole kxm.doc.v1 page. Shape problems only (no front matter, bad YAML). */
export function readKxmDoc(text: string): ReadDocResult {
  const split = splitFrontMatter(text);
  if (split === null) {
    return {
      ok: false,
      problems: [
        {
          path: 'frontMatter',
          message: 'the page does not start with `---` front matter',
          expected: 'front matter with schema: "kxm.doc.v1"',
          got: text.slice(0, 40),
        },
      ],
    };
  }
  const fm = readFrontMatter(split.front);
  if (!fm.ok) return fm;
  const doc: KxmDocText = { frontMatter: fm.value, title: null, preamble: [], sections: [] };
  let section: DocSection | null = null;
  let bullet: DocBullet | null = null;
  let bulletIndent = 0;
  let inFence = false;
  const addText = (line: string): void => {
    if (section === null) doc.preamble.push(line);
    else section.text.push(line);
  };
  for (const line of split.body) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      bullet = null;
      addText(line);
      continue;
    }
    if (inFence) {
      addText(line);
      continue;
    }
    const h = HEADING.exec(line);
    if (h !== null) {
      const level = (h[1] ?? '').length;
      const heading = h[2] ?? '';
      bullet = null;
      if (level === 1 && doc.title === null && section === null) doc.title = heading;
      else {
        section = { heading, level, bullets: [], text: [] };
        doc.sections.push(section);
      }
      continue;
    }
    if (line.trim() === '') continue;
    const b = BULLET.exec(line);
    if (b !== null) {
      const indent = (b[1] ?? '').replace(/\t/g, '    ').length;
      const content = (b[2] ?? '').trim();
      if (bullet !== null && indent > bulletIndent) {
        bullet.children.push(content);
        continue;
      }
      if (section === null) {
        section = { heading: '', level: 2, bullets: [], text: [] };
        doc.sections.push(section);
      }
      bullet = { ...splitLabel(content), children: [] };
      bulletIndent = indent;
      section.bullets.push(bullet);
      continue;
    }
    if (bullet !== null && /^\s+\S/.test(line)) {
      const lastChild = bullet.children.length - 1;
      if (lastChild >= 0)
        bullet.children[lastChild] = `${bullet.children[lastChild] ?? ''} ${line.trim()}`;
      else bullet.value = bullet.value === '' ? line.trim() : `${bullet.value} ${line.trim()}`;
      continue;
    }
    bullet = null;
    addText(line);
  }
  return { ok: true, doc };
}

function yamlScalar(value: FrontValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(yamlScalar).join(', ')}]`;
  return '{}';
}

/** Writes front matter in the template's style (double-quoted strings, one nested level). */
export function writeFrontMatter(fm: FrontMatter): string {
  const out: string[] = ['---'];
  for (const [key, value] of Object.entries(fm)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out.push(`${key}:`);
      for (const [k, v] of Object.entries(value)) out.push(`  ${k}: ${yamlScalar(v)}`);
    } else out.push(`${key}: ${yamlScalar(value)}`);
  }
  out.push('---');
  return out.join('\n');
}

/** Inline code that survives any content: picks a fence longer than any backtick run inside. */
export function code(value: string): string {
  const longest = Math.max(0, ...Array.from(value.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') || value === '' ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** Collapses line breaks so a value stays on its bullet line. */
export function oneLine(value: string): string {
  return value.replace(/\s*\r?\n\s*/g, ' ').trim();
}
