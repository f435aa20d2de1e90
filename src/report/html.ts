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
details.record { background: #fff; border: 1px solid #ddd; border-left: 6px solid #15803d; border-radius: 6px; padding: .4rem 1rem; margin: .4rem 0; }
details.record[open] { padding-bottom: 1rem; }
details.record > summary { cursor: pointer; display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
details.record.v-contradicted { border-left-color: #b91c1c; }
details.record.v-unverifiable { border-left-color: #92400e; }
details.record.v-stale { border-left-color: #4b5563; }
details.fold > summary { cursor: pointer; color: #444; margin: .6rem 0 .3rem; }
.badge { display: inline-block; white-space: nowrap; padding: 0 .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600; color: #fff; background: #15803d; }
.badge.v-contradicted { background: #b91c1c; }
.badge.v-unverifiable { background: #92400e; }
.badge.v-stale { background: #4b5563; }
.badge.integrity { background: #7f1d1d; }
#summary td.n { white-space: nowrap; }
#filters { display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; padding: .75rem 0; border-bottom: 1px solid #ddd; position: sticky; top: 0; background: #fafafa; z-index: 1; }
pre { background: #f6f6f8; padding: .4rem .6rem; margin: .2rem 0 .6rem; overflow-x: auto; white-space: pre-wrap; }
pre ins { text-decoration: none; background: #dcfce7; }
pre del { text-decoration: none; background: #fee2e2; }
pre .hunk { color: #1e40af; }
.meta { color: #555; }
.empty { color: #595959; font-style: italic; }
`;

const SCRIPT = `
"use strict";
(function () {
  var filters = ["verdict", "lifecycle", "task"].map(function (name) {
    return { name: name, select: document.getElementById("filter-" + name) };
  });
  var shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#summary tbody tr"));
  var records = Array.prototype.slice.call(document.querySelectorAll("details.record"));
  function apply() {
    var visible = 0;
    function match(el) {
      return filters.every(function (f) {
        return f.select.value === "" || el.getAttribute("data-" + f.name) === f.select.value;
      });
    }
    rows.forEach(function (row) {
      row.hidden = !match(row);
      if (!row.hidden) visible++;
    });
    records.forEach(function (record) {
      record.hidden = !match(record);
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
          <div id="records">
            ${report.records.length === 0 ? html`<p class="empty">No records.</p>` : recordsDetails(report, taskIndex, budget)}
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

/** What the filters match: the same on a summary row and on its record's details. */
function filterData(r: AuditRecord, taskIndex: ReadonlyMap<string, string>): SafeHtml {
  const task = r.record?.task === undefined ? '' : taskIndex.get(r.record.task);
  return html`data-verdict="${r.verdict}" data-lifecycle="${lifecycleWord(r) ?? ''}"
  data-task="${task}"`;
}

function badge(verdict: Verdict, integrity = false): SafeHtml {
  return html`<span class="badge v-${verdict}${integrity ? ' integrity' : ''}"
    >${integrity ? 'integrity failure' : verdict}</span
  >`;
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
      ${report.records.map((r, i) => {
        const rec = r.record;
        return html`<tr ${filterData(r, taskIndex)}>
          <td class="n">
            <a href="#r${i}">${badge(r.verdict, r.integrity)} <code>${r.id.slice(7, 19)}</code></a>
          </td>
          <td class="s-task"><bdi>${cap(rec?.task ?? '—', 120)}</bdi></td>
          <td class="s-status">
            ${rec === undefined ? '—' : html`<bdi>${claimedStatusLabel(rec.claimedStatus)}</bdi> → ${rec.effectiveStatus}`}
          </td>
          <td class="s-lifecycle">${lifecycleWord(r) ?? '—'}</td>
          <td class="s-checks">${verdictCounts(r.checks)}</td>
        </tr>`;
      })}
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
export const PAGE_BYTES = 1_900_000;
/** Record details always get at least this much, however long the summary table is. */
const MIN_DETAILS_BYTES = 200_000;

function recordsDetails(
  report: AuditReport,
  taskIndex: ReadonlyMap<string, string>,
  budget: number,
): SafeHtml {
  // Every record gets at least its stub; details replace stubs in page order while they fit.
  const stubs = report.records.map((r, i) => recordDetails(r, i, taskIndex, true));
  let left = budget - stubs.reduce((n, stub) => n + stub.text.length, 0);
  const parts = report.records.map((r, i) => {
    const stub = stubs[i]!;
    if (left <= 0) return stub;
    const full = recordDetails(r, i, taskIndex);
    if (full.text.length - stub.text.length > left) {
      left = 0;
      return stub;
    }
    left -= full.text.length - stub.text.length;
    return full;
  });
  return new SafeHtml(parts.map((p) => p.text).join('\n'));
}

function recordDetails(
  r: AuditRecord,
  index: number,
  taskIndex: ReadonlyMap<string, string>,
  stub = false,
): SafeHtml {
  const rec = r.record;
  const shown = r.checks.filter((c) => c.verdict !== 'verified');
  const verified = r.checks.filter((c) => c.verdict === 'verified');
  const verdictOf = (id: string) => r.checks.find((c) => c.id === id)?.verdict;
  return html`<details class="record v-${r.verdict}" id="r${index}" ${filterData(r, taskIndex)}>
    <summary>
      ${badge(r.verdict, r.integrity)} <code class="record-id">${r.id}</code>
      ${rec?.task === undefined ? '' : html`<bdi class="d-task">${cap(rec.task, 120)}</bdi>`}
    </summary>
    ${
      stub
        ? html`<p class="empty">
            Details left out to keep the page small: <code>ledger report --html FILE ID</code> with
            this id shows them.
          </p>`
        : html`${rec === undefined ? html`<p class="empty">The record could not be read; its checks say why.</p>` : facts(rec, r)}
            ${shown.length === 0 ? '' : checkList(shown)}
            ${rec === undefined ? '' : evidence(rec, verdictOf)}
            <details class="fold verified">
              <summary>
                ${verified.length} verified
                check(s)${verified.length > 0 ? `: ${kinds(verified)}` : ''}
              </summary>
              ${rec === undefined ? '' : anchors(rec)} ${signatures(r)}
            </details>`
    }
  </details>`;
}

/** A record's checks that did not verify: verdict, check, subject, detail (re-run output). */
function checkList(checks: readonly Check[]): SafeHtml {
  return html`<ul class="checks">
    ${checks.map(
      (c) =>
        html`<li class="check" data-verdict="${c.verdict}" data-check-id="${c.id}">
          ${badge(c.verdict, c.integrity === true && c.verdict !== 'verified')}
          <code class="c-check">${c.check}</code>
          <bdi class="c-subject">${cap(c.subject, FIELD_CHARS)}</bdi>:
          <bdi class="c-detail">${cap(c.detail, FIELD_CHARS)}</bdi
          >${c.rerun ? rerunTail(c.rerun.tail) : ''}
        </li>`,
    )}
  </ul>`;
}

type RecordView = NonNullable<AuditRecord['record']>;

function facts(rec: RecordView, r: AuditRecord): SafeHtml {
  const verified = r.signatures.filter((s) => s.verified).map((s) => s.signer);
  return html`<p class="facts">
      <bdi class="f-claimed">${claimedStatusLabel(rec.claimedStatus)}</bdi> →
      <span class="f-effective">${rec.effectiveStatus}</span>,
      <span class="f-lifecycle">${lifecycleWord(r) ?? '—'}</span>;
      ${rec.run === undefined ? '' : html`run <bdi>${cap(rec.run, FIELD_CHARS)}</bdi>, `}${rec.format},
      ${rec.recordedAt}${rec.producer === undefined ? '' : html`, by <bdi>${cap(rec.producer, FIELD_CHARS)}</bdi>`}
      ${verified.length > 0 ? html`(verified: ${verified.join(', ')})` : rec.producer === undefined ? '' : '(not proven)'}
    </p>
    ${
      rec.reasons.length > 0
        ? html`<ul class="reasons">
            ${rec.reasons.map((reason) => html`<li><code>${reason.code}</code> <bdi>${cap(reason.message, FIELD_CHARS)}</bdi></li>`)}
          </ul>`
        : ''
    }
    ${rec.summary === undefined ? '' : html`<p class="summary">${capText(rec.summary, SUMMARY_CHARS)}</p>`}`;
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
      ? html`<ins>+${l.text}</ins>`
      : l.op === '-'
        ? html`<del>-${l.text}</del>`
        : l.op === '@'
          ? html`<span class="hunk">${l.text}</span>`
          : html` ${l.text}`,
  );
  return new SafeHtml(rendered.map((h) => h.text).join('\n'));
}

function claimedFile(f: ClaimedFile, verdict: Verdict | undefined): SafeHtml {
  const diff = f.diff;
  return html`<li class="file">
    ${verdict === undefined || verdict === 'verified' ? '' : badge(verdict)}
    <bdi class="path">${cap(f.path, FIELD_CHARS)}</bdi>
    ${f.change}${diff ? `, +${diff.added} −${diff.removed}` : ''}, ${f.size} bytes, sha256
    <code>${f.sha256.slice(0, 16)}</code>
    ${f.note === undefined || f.note === NO_ROOM ? '' : html`<span class="empty">(${f.note})</span>`}
    ${
      diff === undefined || diff.lines.length === 0
        ? ''
        : html`<pre class="diff">
${diffLines(diff.lines)}${diff.omitted > 0 ? `\n… ${diff.omitted} more diff line(s)` : ''}</pre>`
    }
  </li>`;
}

function evidence(rec: RecordView, verdictOf: (id: string) => Verdict | undefined): SafeHtml {
  const files: ClaimedFile[] =
    rec.files ?? rec.artifacts.map((a) => ({ ...a, change: 'unknown' as const }));
  const noRoom =
    files.some((f) => f.note === NO_ROOM) || rec.witnesses.some((w) => w.output?.note === NO_ROOM);
  return html`${noRoom ? html`<p class="empty">Diffs and output: ${NO_ROOM}.</p>` : ''}${
    files.length === 0
      ? ''
      : html`<ul class="files" aria-label="claimed files, base → candidate">
          ${files.map((f, i) => claimedFile(f, verdictOf(`observed.artifacts[${i}]`)))}
        </ul>`
  }
  ${
    rec.witnesses.length === 0
      ? ''
      : html`<ul class="witnesses" aria-label="witnesses">
          ${rec.witnesses.map((w, i) => {
            const verdict = verdictOf(`observed.witnesses[${i}]`);
            return html`<li class="witness">
              ${verdict === undefined ? '' : badge(verdict)}
              <code>${cap(w.command, FIELD_CHARS)}</code>:
              ${w.timedOut ? 'timed out' : w.exitCode === null ? `signal ${w.signal ?? '?'}` : `exit ${w.exitCode}`},
              ${w.durationMs} ms
              ${w.output?.note === undefined || w.output.note === NO_ROOM ? '' : html`<span class="empty">(${w.output.note})</span>`}
              ${(['stdout', 'stderr'] as const).map((s) => {
                const tail = w.output?.[s];
                if (tail === undefined || tail.lines.length === 0) return '';
                const before = tail.omitted > 0 || tail.more ? `… earlier ${s} left out\n` : '';
                return html`<pre class="tail-${s}" aria-label="${s}, last lines">
${before}${tail.lines.join('\n')}</pre>`;
              })}
            </li>`;
          })}
        </ul>`
  }`;
}

function anchors(rec: RecordView): SafeHtml {
  const { anchors } = rec;
  return html`<p class="anchors mono">
    base commit ${anchors.baseCommit ?? '(none)'}; candidate tree
    ${anchors.candidateTree}${anchors.branch === undefined ? '' : html`; branch <bdi>${cap(anchors.branch, FIELD_CHARS)}</bdi>`}
  </p>`;
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
