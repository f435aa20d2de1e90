/**
 * Putting text into HTML and Markdown that an agent may have written to break out of it:
 * `<script>`, `</textarea>`, a `"` that ends an attribute, an `@mention`, a `|` that opens a
 * new table cell. Terminal escaping is not enough here and HTML escaping is not enough in a
 * terminal, so text gets both: invisible and control characters become visible escapes
 * (`escapeForTerminal`, so a bidi override cannot make `contradicted` read otherwise), then the
 * target language's own escaping.
 *
 * HTML is written only through the `html` tag below: every interpolated value is escaped
 * unless it is itself the result of `html`, so forgetting to escape is not possible.
 */
import { escapeForTerminal, sanitizeLine } from '../paths/index.js';

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for an HTML element or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return escapeForTerminal(text).replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

/** Markup built by `html`: already safe, inserted as is. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Interpolation =
  SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * The literal parts with each run of whitespace that holds a newline cut to one newline: the
 * source's indentation is most of a page's bytes otherwise, and outside `<pre>` (whose content
 * is always a value, never a literal) a browser shows any whitespace run as one space.
 */
const compacted = new WeakMap<TemplateStringsArray, readonly string[]>();
function literals(strings: TemplateStringsArray): readonly string[] {
  let parts = compacted.get(strings);
  if (parts === undefined) {
    parts = strings.map((s) => s.replace(/[ \t]*\n\s*/g, '\n'));
    compacted.set(strings, parts);
  }
  return parts;
}

/** A template tag: the literal parts are markup, every value is escaped (arrays joined). */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  const parts = literals(strings);
  let out = parts[0]!;
  values.forEach((value, i) => {
    out += render(value) + parts[i + 1]!;
  });
  return new SafeHtml(out);
}

/**
 * Text for one line of GitHub-flavoured Markdown (a table cell, a list item): one line, every
 * ASCII punctuation character but `/` backslash-escaped (CommonMark allows that for all of
 * them; `/` means nothing on its own and paths stay readable), and `&`, `<`, `>` as entities, so
 * no link, emphasis, HTML, mention or cell break survives.
 */
export function escapeMarkdown(text: string): string {
  return sanitizeLine(text).replace(/[!-.:-@[-`{-~]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : `\\${c}`,
  );
}
