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
import type { Verdict } from '../verify/types.js';
import { NO_ROOM } from './bounded.js';
import { html, SafeHtml } from './escape.js';
import { bytesOf, recordsDetails } from './html-details.js';
import { badge, cap, checksTable, h, verdictCounts } from './html-parts.js';
import {
  cachedRunLine,
  lifecycleCell,
  lifecycleWord,
  OUTCOME_WORDS,
  outcomeOf,
  recordsChecked,
  VERDICT_RANK,
  type AuditRecord,
  type AuditReport,
} from './model.js';
import { CONTENT_SECURITY_POLICY, inline, SCRIPT, STYLE } from './page-assets.js';

export { CONTENT_SECURITY_POLICY } from './page-assets.js';

export function renderHtml(report: AuditReport): string {
  const taskIndex = new Map(report.tasks.map((task, i) => [task, `t${i}`]));
  const lifecycles = [
    ...new Set(
      report.records.flatMap((r) => (lifecycleWord(r) === undefined ? [] : [lifecycleWord(r)!])),
    ),
  ].sort();
  const byVerdict = (v: Verdict) => report.records.filter((r) => r.verdict === v).length;
  const { counts } = report;
  const outcome = outcomeOf(report);
  const cached = cachedRunLine(report);
  const summary = summaryTable(report, taskIndex);
  const ledgerChecks = checksTable(report.ledger, 'ledger-check');
  const taskOptions = new SafeHtml(
    report.tasks
      .map((task) => h`<option value="${taskIndex.get(task)}">${taskLabel(task)}</option>`.text)
      .join(''),
  );
  // What the rest of the page leaves for the records' details (recordsDetails keeps a floor).
  const budget =
    PAGE_BYTES -
    bytesOf(summary) -
    bytesOf(ledgerChecks) -
    bytesOf(taskOptions) -
    STYLE.length -
    SCRIPT.length -
    20_000;
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
            <span class="badge ${badgeClass(outcome, report.exitCode)}"
              >${OUTCOME_WORDS[outcome]}</span
            >
            ${recordsChecked(report)}: ${counts.contradicted} contradicted, ${counts.unverifiable}
            unverifiable, ${counts.stale} stale, ${counts.verified} verified
            check(s)${report.strict ? ' — strict: unverifiable fails' : ''}
          </p>
          ${cached === undefined ? '' : html`<p class="meta" id="cached-run"><strong>${cached}</strong></p>`}
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
                ${taskOptions}
              </select></label
            >
            <output id="shown"></output>
          </div>
          ${summary}
          <h2>Records</h2>
          ${noRoom(report) ? html`<p class="empty" id="no-room">Diffs and output tails are shown worst first while there is room: ${NO_ROOM} for those of the records without them.</p>` : ''}
          <div id="records">
            ${report.records.length === 0 ? html`<p class="empty">No records.</p>` : recordsDetails(report, budget, MIN_DETAILS_BYTES)}
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

/** Green only for a run that checked something and passed; grey for one that checked nothing. */
function badgeClass(outcome: ReturnType<typeof outcomeOf>, exitCode: number): string {
  if (outcome === 'nothing' || outcome === 'nothing-new') return 'v-none';
  return exitCode === 0 ? 'v-verified' : exitCode === 3 ? 'integrity' : 'v-contradicted';
}

/** Characters of a task in its summary row and the task filter (its details cap it alike). */
const TASK_CHARS = 120;

/**
 * A task as the filter lists it: capped as in the rows, and a cut one followed by a digest of
 * the whole task, so two tasks that share their first TASK_CHARS characters stay two choices
 * a person can tell apart (the filter itself matches by index, never by this text).
 */
function taskLabel(task: string): string {
  const shown = cap(task, TASK_CHARS);
  if (shown === task) return task;
  return `${shown} [sha256 ${createHash('sha256').update(task, 'utf8').digest('hex').slice(0, 12)}]`;
}

/**
 * What the filters match, on the summary row only: the script hides a record's details with its
 * row (rows and details are in the same order), so the details need no copy of them.
 */
function filterData(r: AuditRecord, taskIndex: ReadonlyMap<string, string>): SafeHtml {
  const task = r.record?.task === undefined ? '' : taskIndex.get(r.record.task);
  return h`data-v="${r.verdict}" data-l="${lifecycleWord(r) ?? ''}" data-t="${task}"`;
}

/** The lifecycle cell, the step's own words isolated in `<bdi>` like all agent text. */
function lifecycle(r: AuditRecord): SafeHtml | string {
  const cell = lifecycleCell(r);
  if (cell === undefined) return '—';
  return cell.by === undefined
    ? h`${cell.lead}${cell.tail}`
    : h`${cell.lead}<bdi>${cell.by}</bdi>${cell.tail}`;
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
    return h`<tr ${filterData(r, taskIndex)}><td><a href="#r${i}">${badge(r.verdict, r.integrity)} <code>${r.id.slice(7, 19)}</code></a><td><bdi>${cap(rec?.task ?? '—', TASK_CHARS)}</bdi><td>${status}<td>${lifecycle(r)}<td>${verdictCounts(r.checks)}`;
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

/**
 * Bytes (UTF-8) one page aims to stay under: what the summary table, the task filter and the
 * rest leave is the budget of the records' details, so 1,000 records stay under 2 MiB
 * (2,097,152 bytes; the browser test measures it). Details are written in page order, worst
 * first; past the budget a record keeps its summary row and a stub that says how to see it. A
 * ledger whose rows and stubs alone fill PAGE_BYTES (thousands of records) goes past it by its
 * details' floor at most: MIN_DETAILS_BYTES more.
 */
export const PAGE_BYTES = 2_000_000;
/**
 * The records' details always get at least this much beyond their stubs, however many records
 * there are: the worst records, first on the page, keep what failed and why.
 */
export const MIN_DETAILS_BYTES = 200_000;
