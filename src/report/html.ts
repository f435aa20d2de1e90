/**
 * The audit page: one self-contained HTML file an auditor can open anywhere, archive with a
 * CI run or mail to someone. It loads nothing — no scripts, fonts, images or styles from
 * anywhere — and says so to the browser: a Content-Security-Policy meta element allows only
 * the page's own inline style and script, by their sha256, so even text that slipped past
 * escaping could not run or fetch anything.
 *
 * It scales to thousands of records: a summary table first (one row per record: task, claimed
 * → effective status, lifecycle, verdict counts), then each record's details collapsed in a
 * `<details>`, its claims first and the plumbing checks (chain, id, canonical, anchors,
 * evidence digests, re-derivations) folded away unless one of them failed. Claimed files show
 * a bounded diff and witnesses the tail of their output (`bounded.ts`); the markup carries no
 * indentation (`escape.ts`). 1,000 records stay under 2 MB (the browser test measures it).
 *
 * Filtering (by verdict, lifecycle, task) is a few lines of script over `data-` attributes:
 * the verdict filter matches the record's own verdict (its worst check), so "verified" shows
 * only records with nothing contradicted, unverifiable or stale; the task filter matches by
 * index into the page's own task list, never by comparing agent-written strings. Every value
 * on the page goes through `html` (see `escape.ts`).
 */
import { createHash } from 'node:crypto';
import { claimedStatusLabel } from '../model/vocabulary.js';
import type { Check, Verdict } from '../verify/types.js';
import { capLine, type DiffLine } from './bounded.js';
import { html, SafeHtml } from './escape.js';
import { NO_ROOM } from './bounded.js';
import {
  lifecycleWord,
  VERDICT_RANK,
  type AuditRecord,
  type AuditReport,
  type ClaimedFile,
} from './model.js';

/**
 * Badge colours meet WCAG AA (4.5:1) with white text: green 700 (5.0:1), amber 800 (6.0:1), red
 * 700 (6.5:1), grey 600 (4.8:1).
 */
const STYLE = `
:root { color-scheme: light; font: 14px/1.45 system-ui, sans-serif; color: #1d1d1f; background: #fafafa; }
body { margin: 0 auto; max-width: 1200px; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: .5rem 0; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: .9rem; margin: 1rem 0 .3rem; text-transform: uppercase; letter-spacing: .04em; color: #555; }
code, .mono, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .25rem .5rem; border-bottom: 1px solid #e4e4e7; overflow-wrap: anywhere; }
th { font-weight: 600; color: #444; }
td.c-check, td.c-verdict { white-space: nowrap; width: 1%; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.summary { white-space: pre-wrap; background: #f2f2f5; padding: .5rem .75rem; border-radius: 4px; }
#records > details { background: #fff; border: 1px solid #ddd; border-left: 6px solid #15803d; border-radius: 6px; padding: .4rem 1rem; margin: .4rem 0; }
#records > details[open] { padding-bottom: 1rem; }
#records > details > summary { cursor: pointer; display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
#records > details.c { border-left-color: #b91c1c; }
#records > details.u { border-left-color: #92400e; }
#records > details.s { border-left-color: #4b5563; }
details.fold > summary, #records details details > summary { cursor: pointer; color: #444; margin: .6rem 0 .3rem; }
.badge, b.c, b.u, b.s, b.v, b.i { display: inline-block; white-space: nowrap; padding: 0 .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600; color: #fff; background: #15803d; }
b.c { background: #b91c1c; }
b.u { background: #92400e; }
b.s { background: #4b5563; }
b.i, .badge.integrity { background: #7f1d1d; }
.badge.v-contradicted { background: #b91c1c; }
#summary tbody td:first-child { white-space: nowrap; }
ul.checks > li > code, ul.files > li > bdi:first-of-type { font-weight: 600; }
#filters { display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; padding: .75rem 0; border-bottom: 1px solid #ddd; position: sticky; top: 0; background: #fafafa; z-index: 1; }
pre { background: #f6f6f8; padding: .4rem .6rem; margin: .2rem 0 .6rem; overflow-x: auto; white-space: pre-wrap; }
pre ins { text-decoration: none; background: #dcfce7; }
pre del { text-decoration: none; background: #fee2e2; }
pre i { font-style: normal; color: #1e40af; }
.meta { color: #555; }
.empty { color: #595959; font-style: italic; }
`;

const SCRIPT = `
"use strict";
(function () {
  var filters = ["verdict", "lifecycle", "task"].map(function (name) {
    return { name: name.charAt(0), select: document.getElementById("filter-" + name) };
  });
  var shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#summary tbody tr"));
  var records = Array.prototype.slice.call(document.querySelectorAll("#records > details"));
  function apply() {
    var visible = 0;
    function match(el) {
      return filters.every(function (f) {
        return f.select.value === "" || el.getAttribute("data-" + f.name) === f.select.value;
      });
    }
    rows.forEach(function (row, i) {
      row.hidden = !match(row);
      if (records[i]) records[i].hidden = row.hidden;
      if (!row.hidden) visible++;
    });
    shown.textContent = visible + " of " + rows.length + " record(s) shown";
  }
  function reveal() {
    var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === "DETAILS") target.open = true;
  }
  filters.forEach(function (f) {
    f.select.addEventListener("change", apply);
  });
  window.addEventListener("hashchange", reveal);
  apply();
  reveal();
})();
`;

function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The Content-Security-Policy of every page: nothing but its own inline style and script. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${cspHash(STYLE)}`,
  `script-src ${cspHash(SCRIPT)}`,
  "img-src 'none'",
  "font-src 'none'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export function renderHtml(report: AuditReport): string {
  const taskIndex = new Map(report.tasks.map((task, i) => [task, `t${i}`]));
  const lifecycles = [
    ...new Set(
      report.records.flatMap((r) => (lifecycleWord(r) === undefined ? [] : [lifecycleWord(r)!])),
    ),
  ].sort();
  const byVerdict = (v: Verdict) => report.records.filter((r) => r.verdict === v).length;
  const { counts } = report;
  const summary = summaryTable(report, taskIndex);
  const ledgerChecks = checksTable(report.ledger, 'ledger-check');
  const budget = Math.max(
    MIN_DETAILS_BYTES,
    PAGE_BYTES -
      summary.text.length -
      ledgerChecks.text.length -
      STYLE.length -
      SCRIPT.length -
      20_000,
  );
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}" />
        <meta name="referrer" content="no-referrer" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>ledger audit report</title>
        ${inline('style', STYLE)}
      </head>
      <body>
        <header>
          <h1>Ledger audit report</h1>
          <p class="meta" id="verdict-line">
            <span
              class="badge ${report.exitCode === 0 ? 'v-verified' : report.exitCode === 3 ? 'integrity' : 'v-contradicted'}"
              >${outcome(report.exitCode)}</span
            >
            ${report.records.length} record(s): ${counts.contradicted} contradicted,
            ${counts.unverifiable} unverifiable, ${counts.stale} stale, ${counts.verified} verified
            check(s)${report.strict ? ' — strict: unverifiable fails' : ''}
          </p>
          <p class="meta">
            Generated ${report.generatedAt} by ledger ${report.ledgerVersion}; exit code
            ${report.exitCode}${report.policy ? html`; policy: ${report.policy.source}${report.policy.path === undefined ? '' : html` <code>${report.policy.path}</code>`}, digest <code>${report.policy.digest}</code>` : ''}.
          </p>
          ${
            report.notes.length > 0
              ? html`<ul class="notes">
                  ${report.notes.map((n) => html`<li>${n}</li>`)}
                </ul>`
              : ''
          }
        </header>
        <main>
          <div id="filters">
            <label
              >Verdict
              <select id="filter-verdict">
                <option value="">any</option>
                ${VERDICT_RANK.map((v) => html`<option value="${v}">${v} (${byVerdict(v)})</option>`)}
              </select></label
            >
            <label
              >Lifecycle
              <select id="filter-lifecycle">
                <option value="">any</option>
                ${lifecycles.map((l) => html`<option value="${l}">${l}</option>`)}
              </select></label
            >
            <label
              >Task
              <select id="filter-task">
                <option value="">any</option>
                ${report.tasks.map((task) => html`<option value="${taskIndex.get(task)}">${task}</option>`)}
              </select></label
            >
            <output id="shown"></output>
          </div>
          ${summary}
          <h2>Records</h2>
          ${noRoom(report) ? html`<p class="empty" id="no-room">Diffs and output tails are shown worst first while there is room: ${NO_ROOM} for those of the records without them.</p>` : ''}
          <div id="records">
            ${report.records.length === 0 ? html`<p class="empty">No records.</p>` : recordsDetails(report, budget)}
          </div>
          <details class="fold" id="ledger-checks">
            <summary>The ledger's own checks (${report.ledger.length})</summary>
            ${ledgerChecks}
          </details>
        </main>
        ${inline('script', SCRIPT)}
      </body>
    </html> `;
  return page.text;
}

/** Some record's diffs or output were left out for the page's budget (said once, not per record). */
function noRoom(report: AuditReport): boolean {
  return report.records.some(
    (r) =>
      r.record?.files?.some((f) => f.note === NO_ROOM) === true ||
      r.record?.witnesses.some((w) => w.output?.note === NO_ROOM) === true,
  );
}

function outcome(exitCode: number): string {
  return exitCode === 0
    ? 'all checks passed'
    : exitCode === 3
      ? 'INTEGRITY FAILURE'
      : 'claims do not hold';
}

/**
 * The page's own style or script element, byte for byte the text the CSP hash was computed
 * over (built here, not in the template, so no formatter can re-indent its body). Only ever
 * given the constants above, never anything read from a record.
 */
function inline(tag: 'style' | 'script', body: typeof STYLE | typeof SCRIPT): SafeHtml {
  return new SafeHtml(`<${tag}>${body}</${tag}>`);
}

/**
 * The per-record markup is written with `h`, not `html`: the same tag, but a name Prettier does
 * not reformat as embedded HTML, so each record's markup stays on as few lines as it was written
 * (a thousand records' line breaks and attribute wrapping were a tenth of the page).
 */
const h = html;

/**
 * What the filters match, on the summary row only: the script hides a record's details with its
 * row (rows and details are in the same order), so the details need no copy of them.
 */
function filterData(r: AuditRecord, taskIndex: ReadonlyMap<string, string>): SafeHtml {
  const task = r.record?.task === undefined ? '' : taskIndex.get(r.record.task);
  return h`data-v="${r.verdict}" data-l="${lifecycleWord(r) ?? ''}" data-t="${task}"`;
}

/** A verdict's one-letter class: the badge's colour and the record's border (see STYLE). */
const SHORT: Readonly<Record<Verdict, string>> = {
  contradicted: 'c',
  unverifiable: 'u',
  stale: 's',
  verified: 'v',
};

/** A verdict badge: `<b>` with a one-letter class, as it is on the page thousands of times. */
function badge(verdict: Verdict, integrity = false): SafeHtml {
  return integrity
    ? h`<b class=i>integrity failure</b>`
    : h`<b class=${SHORT[verdict]}>${verdict}</b>`;
}

/** "2 contradicted, 11 verified": how many of the record's checks have each verdict. */
function verdictCounts(checks: readonly Check[]): string {
  return VERDICT_RANK.map((v) => [v, checks.filter((c) => c.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${v}`)
    .join(', ');
}

/** "anchor ×3, chain, id": the kinds of `checks`, in order of first appearance. */
function kinds(checks: readonly Check[]): string {
  const counts = new Map<string, number>();
  for (const c of checks) counts.set(c.check, (counts.get(c.check) ?? 0) + 1);
  return [...counts].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(', ');
}

function summaryTable(report: AuditReport, taskIndex: ReadonlyMap<string, string>): SafeHtml {
  if (report.records.length === 0) return html``;
  // Cells and rows are closed by the next one (HTML's optional end tags): a row is on the page
  // once per record.
  const rows = report.records.map((r, i) => {
    const rec = r.record;
    const status =
      rec === undefined
        ? '—'
        : h`<bdi>${claimedStatusLabel(rec.claimedStatus)}</bdi> → ${rec.effectiveStatus}`;
    return h`<tr ${filterData(r, taskIndex)}><td><a href="#r${i}">${badge(r.verdict, r.integrity)} <code>${r.id.slice(7, 19)}</code></a><td><bdi>${cap(rec?.task ?? '—', 120)}</bdi><td>${status}<td>${lifecycleWord(r) ?? '—'}<td>${verdictCounts(r.checks)}`;
  });
  return html`<table id="summary">
    <caption class="meta">
      One row per record, worst first
    </caption>
    <thead>
      <tr>
        <th>record</th>
        <th>task</th>
        <th>claimed → effective</th>
        <th>lifecycle</th>
        <th>checks</th>
      </tr>
    </thead>
    <tbody>
      ${new SafeHtml(rows.map((row) => row.text).join('\n'))}
    </tbody>
  </table>`;
}

/** Agent text on the page is capped, so one record cannot make the page unreadable or huge. */
function cap(text: string, max: number): string {
  return capLine(text, max);
}

function checksTable(checks: readonly Check[], rowClass: string): SafeHtml {
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

function rerunTail(tail: { stdout: string[]; stderr: string[] }): SafeHtml | '' {
  const streams = (['stdout', 'stderr'] as const).filter((s) => tail[s].length > 0);
  if (streams.length === 0) return '';
  return html`${streams.map((s) => html`<pre class="rerun-${s}" aria-label="re-run ${s}">${tail[s].map((l) => cap(l, FIELD_CHARS)).join('\n')}</pre>`)}`;
}

/** Characters of one agent-written field (a check's subject or detail, a reason) on the page. */
const FIELD_CHARS = 500;
/** Characters of a summary on the page. */
const SUMMARY_CHARS = 2000;

/**
 * Bytes one page aims to stay under: what the summary table and the rest leave is the budget of
 * the records' details (so 1,000 records stay under 2 MB). Details are written in page order,
 * worst first; past the budget a record keeps its summary row and a stub that says how to see it.
 */
export const PAGE_BYTES = 1_960_000;
/** Record details always get at least this much, however long the summary table is. */
const MIN_DETAILS_BYTES = 200_000;

function recordsDetails(report: AuditReport, budget: number): SafeHtml {
  // Every record gets at least its stub; details replace stubs in page order while they fit.
  const stubs = report.records.map((r, i) => recordDetails(r, i, true));
  let left = budget - stubs.reduce((n, stub) => n + stub.text.length, 0);
  const parts = report.records.map((r, i) => {
    const stub = stubs[i]!;
    if (left <= 0) return stub;
    const full = recordDetails(r, i);
    if (full.text.length - stub.text.length > left) {
      left = 0;
      return stub;
    }
    left -= full.text.length - stub.text.length;
    return full;
  });
  return new SafeHtml(parts.map((p) => p.text).join('\n'));
}

function recordDetails(r: AuditRecord, index: number, stub = false): SafeHtml {
  const rec = r.record;
  const shown = r.checks.filter((c) => c.verdict !== 'verified');
  const verified = r.checks.filter((c) => c.verdict === 'verified');
  const verdictOf = (id: string) => r.checks.find((c) => c.id === id)?.verdict;
  const head = h`<details class=${SHORT[r.verdict]} id=r${index}><summary>${badge(r.verdict, r.integrity)} <code>${r.id}</code>${rec?.task === undefined ? '' : h` <bdi>${cap(rec.task, 120)}</bdi>`}</summary>`;
  if (stub)
    return h`${head}<p class="empty">Details left out to keep the page small: <code>ledger report --html FILE ID</code> with this id shows them.</p></details>`;
  const body = h`${rec === undefined ? h`<p class="empty">The record could not be read; its checks say why.</p>` : facts(rec, r)}${shown.length === 0 ? '' : checkList(shown)}${rec === undefined ? '' : evidence(rec, verdictOf)}<details><summary>${verified.length} verified check(s)${verified.length > 0 ? `: ${kinds(verified)}` : ''}</summary>${rec === undefined ? '' : anchors(rec)}${signatures(r)}</details>`;
  return h`${head}${body}</details>`;
}

/**
 * A record's checks that did not verify: verdict, check, subject, detail (re-run output), in
 * that order as the item's first children (no class per part: it is on the page per check).
 */
function checkList(checks: readonly Check[]): SafeHtml {
  const items = checks.map(
    (c) =>
      h`<li>${badge(c.verdict, c.integrity === true && c.verdict !== 'verified')} <code>${c.check}</code> <bdi>${cap(c.subject, FIELD_CHARS)}</bdi>: <bdi>${cap(c.detail, FIELD_CHARS)}</bdi>${c.rerun ? rerunTail(c.rerun.tail) : ''}`,
  );
  return h`<ul class=checks>${items}</ul>`;
}

type RecordView = NonNullable<AuditRecord['record']>;

function facts(rec: RecordView, r: AuditRecord): SafeHtml {
  const verified = r.signatures.filter((s) => s.verified).map((s) => s.signer);
  const by =
    rec.producer === undefined
      ? ''
      : h`, by <bdi>${cap(rec.producer, FIELD_CHARS)}</bdi> ${verified.length > 0 ? `(verified: ${verified.join(', ')})` : '(not proven)'}`;
  const reasons =
    rec.reasons.length === 0
      ? ''
      : h`<ul class="reasons">${rec.reasons.map((reason) => h`<li><code>${reason.code}</code> <bdi>${cap(reason.message, FIELD_CHARS)}</bdi>`)}</ul>`;
  // Claimed → effective status and lifecycle are the record's summary row's, not repeated here.
  return h`<p>${rec.run === undefined ? '' : h`run <bdi>${cap(rec.run, FIELD_CHARS)}</bdi>, `}${rec.format}, ${rec.recordedAt}${by}</p>${reasons}${rec.summary === undefined ? '' : h`<p class=summary>${capText(rec.summary, SUMMARY_CHARS)}</p>`}`;
}

/** Multi-line text cut to `max` characters, saying how many were cut. */
function capText(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${chars.slice(0, max).join('')} … (${chars.length - max} more characters)`;
}

function diffLines(lines: readonly DiffLine[]): SafeHtml {
  const rendered = lines.map((l) =>
    l.op === '+'
      ? h`<ins>+${l.text}</ins>`
      : l.op === '-'
        ? h`<del>-${l.text}</del>`
        : l.op === '@'
          ? h`<i>${l.text}</i>`
          : h` ${l.text}`,
  );
  return new SafeHtml(rendered.map((x) => x.text).join('\n'));
}

function claimedFile(f: ClaimedFile, verdict: Verdict | undefined): SafeHtml {
  const diff = f.diff;
  const note =
    f.note === undefined || f.note === NO_ROOM ? '' : h` <span class="empty">(${f.note})</span>`;
  const pre =
    diff === undefined || diff.lines.length === 0
      ? ''
      : h`<pre class="diff">\n${diffLines(diff.lines)}${diff.omitted > 0 ? `\n… ${diff.omitted} more diff line(s)` : ''}</pre>`;
  return h`<li>${verdict === undefined || verdict === 'verified' ? '' : h`${badge(verdict)} `}<bdi>${cap(f.path, FIELD_CHARS)}</bdi> ${f.change}${diff ? `, +${diff.added} −${diff.removed}` : ''}, ${f.size} bytes, sha256 <code>${f.sha256.slice(0, 16)}</code>${note}${pre}`;
}

/** A witness as recorded; its verdict is its check's, in the record's check list. */
function witnessItem(w: RecordView['witnesses'][number]): SafeHtml {
  const result = w.timedOut
    ? 'timed out'
    : w.exitCode === null
      ? `signal ${w.signal ?? '?'}`
      : `exit ${w.exitCode}`;
  const note =
    w.output?.note === undefined || w.output.note === NO_ROOM
      ? ''
      : h` <span class="empty">(${w.output.note})</span>`;
  const tails = (['stdout', 'stderr'] as const).map((s) => {
    const tail = w.output?.[s];
    if (tail === undefined || tail.lines.length === 0) return '';
    const before = tail.omitted > 0 || tail.more ? `… earlier ${s} left out\n` : '';
    return h`<pre class="tail-${s}" aria-label="${s}, last lines">\n${before}${tail.lines.join('\n')}</pre>`;
  });
  return h`<li><code>${cap(w.command, FIELD_CHARS)}</code>: ${result}, ${w.durationMs} ms${note}${tails}`;
}

function evidence(rec: RecordView, verdictOf: (id: string) => Verdict | undefined): SafeHtml {
  const files: ClaimedFile[] =
    rec.files ?? rec.artifacts.map((a) => ({ ...a, change: 'unknown' as const }));
  const fileList =
    files.length === 0
      ? ''
      : h`<ul class=files>${files.map((f, i) => claimedFile(f, verdictOf(`observed.artifacts[${i}]`)))}</ul>`;
  const witnessList =
    rec.witnesses.length === 0 ? '' : h`<ul>${rec.witnesses.map((w) => witnessItem(w))}</ul>`;
  return h`${fileList}${witnessList}`;
}

function anchors(rec: RecordView): SafeHtml {
  const { anchors } = rec;
  return h`<p class="mono">base commit ${anchors.baseCommit ?? '(none)'}; candidate tree ${anchors.candidateTree}${anchors.branch === undefined ? '' : h`; branch <bdi>${cap(anchors.branch, FIELD_CHARS)}</bdi>`}</p>`;
}

function signatures(r: AuditRecord): SafeHtml | '' {
  if (r.signatures.length === 0) return '';
  return html`<table class="signatures">
    <thead>
      <tr>
        <th>signer</th>
        <th>trusted</th>
        <th>key</th>
        <th>detail</th>
      </tr>
    </thead>
    <tbody>
      ${r.signatures.map(
        (s) =>
          html`<tr>
            <td>${s.signer ?? '—'}</td>
            <td>${s.verified ? 'yes' : 'no'}</td>
            <td class="mono">${s.key ?? '—'}</td>
            <td><bdi>${s.reason}</bdi></td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
