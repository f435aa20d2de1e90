/**
 * The small pieces the audit page repeats thousands of times (badges, check tables, capped
 * agent text, re-run output tails), shared by the summary (`html.ts`) and the records' details
 * (`html-details.ts`). Every value goes through `html` (`escape.ts`).
 */
import type { Check, Verdict } from '../verify/types.js';
import { capLine } from './bounded.js';
import { html, SafeHtml } from './escape.js';
import { VERDICT_RANK } from './model.js';

/**
 * The per-record markup is written with `h`, not `html`: the same tag, but a name Prettier does
 * not reformat as embedded HTML, so each record's markup stays on as few lines as it was written
 * (a thousand records' line breaks and attribute wrapping were a tenth of the page).
 */
export const h = html;

/** A verdict's one-letter class: the badge's colour and the record's border (see STYLE). */
export const SHORT: Readonly<Record<Verdict, string>> = {
  contradicted: 'c',
  unverifiable: 'u',
  stale: 's',
  verified: 'v',
};

/** A verdict badge: `<b>` with a one-letter class, as it is on the page thousands of times. */
export function badge(verdict: Verdict, integrity = false): SafeHtml {
  return integrity
    ? h`<b class=i>integrity failure</b>`
    : h`<b class=${SHORT[verdict]}>${verdict}</b>`;
}

/** "2 contradicted, 11 verified": how many of the record's checks have each verdict. */
export function verdictCounts(checks: readonly Check[]): string {
  return VERDICT_RANK.map((v) => [v, checks.filter((c) => c.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${v}`)
    .join(', ');
}

/** "anchor ×3, chain, id": the kinds of `checks`, in order of first appearance. */
export function kinds(checks: readonly Check[]): string {
  const counts = new Map<string, number>();
  for (const c of checks) counts.set(c.check, (counts.get(c.check) ?? 0) + 1);
  return [...counts].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(', ');
}

/** Agent text on the page is capped, so one record cannot make the page unreadable or huge. */
export function cap(text: string, max: number): string {
  return capLine(text, max);
}

export function checksTable(checks: readonly Check[], rowClass: string): SafeHtml {
  if (checks.length === 0) return html`<p class="empty">No checks.</p>`;
  return html`<table class="checks">
    <thead>
      <tr>
        <th>check</th>
        <th>subject</th>
        <th>verdict</th>
        <th>detail</th>
      </tr>
    </thead>
    <tbody>
      ${checks.map(
        (c) =>
          html`<tr class="${rowClass}" data-verdict="${c.verdict}" data-check-id="${c.id}">
            <td class="c-check"><code>${c.check}</code></td>
            <td class="c-subject"><bdi>${cap(c.subject, FIELD_CHARS)}</bdi></td>
            <td class="c-verdict">
              ${badge(c.verdict, c.integrity === true && c.verdict !== 'verified')}
            </td>
            <td class="c-detail">
              <bdi>${cap(c.detail, FIELD_CHARS)}</bdi>${c.rerun ? rerunTail(c.rerun.tail) : ''}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function rerunTail(tail: { stdout: string[]; stderr: string[] }): SafeHtml | '' {
  const streams = (['stdout', 'stderr'] as const).filter((s) => tail[s].length > 0);
  if (streams.length === 0) return '';
  return html`${streams.map((s) => html`<pre class="rerun-${s}" aria-label="re-run ${s}">${tail[s].map((l) => cap(l, FIELD_CHARS)).join('\n')}</pre>`)}`;
}

/** Characters of one agent-written field (a check's subject or detail, a reason) on the page. */
export const FIELD_CHARS = 500;
/** Characters of a summary on the page. */
export const SUMMARY_CHARS = 2000;
