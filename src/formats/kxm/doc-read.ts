/**
 * The text layer of the KXM Markdown view (`kxm.doc.v1`): front matter (YAML, through the kit)
 * and the labelled bullet sections of `docs/templates/handoff.md`, read into a neutral
 * structure. It knows nothing about what the labels mean (doc-parse.ts maps them).
 */
import type { Problem } from '../../model/errors.js';
import { asCommonMarkReads } from '../kit/commonmark.js';
import { readFrontMatter, splitFrontMatter, type FrontMap } from '../kit/front-matter.js';
import { fenceTracker, headingOf } from '../kit/markdown.js';
import { refuse } from '../kit/problems.js';
import { preview } from '../kit/text.js';

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
  /** Non-bullet lines (notes, call-outs), kept verbatim so that nothing is lost. */
  text: string[];
}

export interface KxmDocText {
  frontMatter: FrontMap;
  title: string | null;
  /** Lines between the title and the first `##` section (the template's call-out). */
  preamble: string[];
  sections: DocSection[];
}

/** A list item, bulleted or ordered (`1. **Exit Code:** …` is an item too: red team round 15). */
const BULLET = /^([ \t]*)(?:[-*+]|\d{1,9}[.)])\s+(.*)$/;
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
export function readKxmDoc(
  source: string,
): { ok: true; doc: KxmDocText } | { ok: false; problems: Problem[] } {
  const text = asCommonMarkReads(source);
  const split = splitFrontMatter(text);
  if (split === null)
    return refuse({
      path: 'frontMatter',
      message: 'the page does not start with `---` front matter',
      expected: 'front matter with schema: "kxm.doc.v1"',
      got: preview(text, 40),
    });
  const fm = readFrontMatter(split.raw);
  if (!fm.ok) return fm;
  const doc: KxmDocText = { frontMatter: fm.value, title: null, preamble: [], sections: [] };
  let section: DocSection | null = null;
  let bullet: DocBullet | null = null;
  let bulletIndent = 0;
  const fence = fenceTracker();
  const addText = (line: string): void => {
    if (section === null) doc.preamble.push(line);
    else section.text.push(line);
  };
  for (const line of split.body.split('\n')) {
    if (fence.line(line)) {
      bullet = null;
      addText(line);
      continue;
    }
    const h = headingOf(line);
    if (h !== null && h.title !== '') {
      bullet = null;
      if (h.level === 1 && doc.title === null && section === null) doc.title = h.title;
      else {
        section = { heading: h.title, level: h.level, bullets: [], text: [] };
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
      const last = bullet.children.length - 1;
      if (last >= 0) bullet.children[last] = `${bullet.children[last] ?? ''} ${line.trim()}`;
      else bullet.value = bullet.value === '' ? line.trim() : `${bullet.value} ${line.trim()}`;
      continue;
    }
    bullet = null;
    addText(line);
  }
  return { ok: true, doc };
}
