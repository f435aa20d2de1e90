/**
 * The audit page: one self-contained HTML file an auditor can open anywhere, archive with a
 * CI run or mail to someone. It loads nothing — no scripts, fonts, images or styles from
 * anywhere — and says so to the browser: a Content-Security-Policy meta element allows only
 * the page's own inline style and script, by their sha256, so even text that slipped past
 * escaping could not run or fetch anything.
 *
 * Filtering (by verdict, by task) is a few lines of script over `data-` attributes; the task
 * filter matches by index into the page's own task list, never by comparing agent-written
 * strings. Every value on the page goes through `html` (see `escape.ts`).
 */
import { createHash } from 'node:crypto';
import { claimedStatusLabel } from '../model/vocabulary.js';
import type { Check } from '../verify/types.js';
import { html, SafeHtml } from './escape.js';
import { VERDICT_RANK, type AuditRecord, type AuditReport } from './model.js';

const STYLE = `
:root { color-scheme: light; font: 14px/1.45 system-ui, sans-serif; color: #1d1d1f; background: #fafafa; }
body { margin: 0 auto; max-width: 1200px; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: .5rem 0; }
h2 { font-size: 1.05rem; margin: 0 0 .5rem; display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
h3 { font-size: .9rem; margin: 1rem 0 .3rem; text-transform: uppercase; letter-spacing: .04em; color: #555; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .25rem .5rem; border-bottom: 1px solid #e4e4e7; overflow-wrap: anywhere; }
th { font-weight: 600; color: #444; }
td.c-check, td.c-verdict { white-space: nowrap; width: 1%; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.summary { white-space: pre-wrap; background: #f2f2f5; padding: .5rem .75rem; border-radius: 4px; }
article.record { background: #fff; border: 1px solid #ddd; border-left: 6px solid #16a34a; border-radius: 6px; padding: 1rem; margin: 1rem 0; }
article.record.v-contradicted { border-left-color: #dc2626; }
article.record.v-unverifiable { border-left-color: #ca8a04; }
article.record.v-stale { border-left-color: #6b7280; }
.badge { display: inline-block; white-space: nowrap; padding: 0 .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600; color: #fff; background: #16a34a; }
.badge.v-contradicted { background: #dc2626; }
.badge.v-unverifiable { background: #ca8a04; }
.badge.v-stale { background: #6b7280; }
.badge.integrity { background: #7f1d1d; }
#filters { display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; padding: .75rem 0; border-bottom: 1px solid #ddd; position: sticky; top: 0; background: #fafafa; }
.meta { color: #555; }
.empty { color: #777; font-style: italic; }
`;

const SCRIPT = `
"use strict";
(function () {
  var verdict = document.getElementById("filter-verdict");
  var task = document.getElementById("filter-task");
  var shown = document.getElementById("shown");
  var records = Array.prototype.slice.call(document.querySelectorAll("article.record"));
  function apply() {
    var v = verdict.value;
    var t = task.value;
    var visible = 0;
    records.forEach(function (record) {
      var match = (v === "" || record.getAttribute("data-verdicts").split(" ").indexOf(v) >= 0) &&
        (t === "" || record.getAttribute("data-task") === t);
      record.hidden = !match;
      if (match) visible++;
      Array.prototype.forEach.call(record.querySelectorAll("tr.check"), function (row) {
        row.hidden = v !== "" && row.getAttribute("data-verdict") !== v;
      });
    });
    shown.textContent = visible + " of " + records.length + " record(s) shown";
  }
  verdict.addEventListener("change", apply);
  task.addEventListener("change", apply);
  apply();
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
  const { counts } = report;
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
        <section id="ledger-checks">
          <h3>The ledger</h3>
          ${checksTable(report.ledger, 'ledger-check')}
        </section>
        <div id="filters">
          <label
            >Verdict
            <select id="filter-verdict">
              <option value="">any</option>
              ${VERDICT_RANK.map((v) => html`<option value="${v}">${v}</option>`)}
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
        <main id="records">
          ${report.records.length === 0 ? html`<p class="empty">No records.</p>` : report.records.map((r) => recordSection(r, taskIndex))}
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
          html`<tr
            class="${rowClass}"
            data-verdict="${c.verdict}"
            data-check-id="${'id' in c ? String(c.id) : ''}"
          >
            <td class="c-check"><code>${c.check}</code></td>
            <td class="c-subject"><bdi>${c.subject}</bdi></td>
            <td class="c-verdict">
              <span
                class="badge v-${c.verdict}${c.integrity && c.verdict !== 'verified' ? ' integrity' : ''}"
                >${c.verdict}</span
              >
            </td>
            <td class="c-detail"><bdi>${c.detail}</bdi></td>
          </tr> `,
      )}
    </tbody>
  </table>`;
}

function recordSection(r: AuditRecord, taskIndex: ReadonlyMap<string, string>): SafeHtml {
  const rec = r.record;
  const task = rec?.task === undefined ? '' : taskIndex.get(rec.task);
  return html`<article
    class="record v-${r.verdict}"
    id="r-${r.id.slice(7)}"
    data-record="${r.id}"
    data-verdict="${r.verdict}"
    data-verdicts="${r.verdicts.join(' ')}"
    data-task="${task}"
  >
    <h2>
      <span class="badge v-${r.verdict}${r.integrity ? ' integrity' : ''}"
        >${r.integrity ? 'integrity failure' : r.verdict}</span
      >
      <code class="record-id">${r.id}</code>
    </h2>
    ${rec === undefined ? html`<p class="empty">The record could not be read; its checks say why.</p>` : facts(rec, r)}
    <h3>Checks</h3>
    ${checksTable(r.checks, 'check')} ${rec === undefined ? '' : details(rec, r)}
  </article> `;
}

function facts(rec: NonNullable<AuditRecord['record']>, r: AuditRecord): SafeHtml {
  const verified = r.signatures.filter((s) => s.verified).map((s) => s.signer);
  return html`<dl class="facts">
      <dt>task</dt>
      <dd class="f-task">
        <bdi>${rec.task ?? '—'}</bdi
        >${rec.run === undefined ? '' : html` (run <bdi>${rec.run}</bdi>)`}
      </dd>
      <dt>format</dt>
      <dd>${rec.format}</dd>
      <dt>recorded</dt>
      <dd>${rec.recordedAt}</dd>
      <dt>producer</dt>
      <dd>
        ${rec.producer === undefined ? '—' : html`<bdi>${rec.producer}</bdi>`}
        ${verified.length > 0 ? html`(verified: ${verified.join(', ')})` : rec.producer === undefined ? '' : '(claimed, not proven)'}
      </dd>
      <dt>claimed status</dt>
      <dd class="f-claimed"><bdi>${claimedStatusLabel(rec.claimedStatus)}</bdi></dd>
      <dt>effective status</dt>
      <dd class="f-effective">${rec.effectiveStatus}</dd>
      ${
        rec.reasons.length > 0
          ? html`<dt>reasons</dt>
              <dd>
                <ul>
                  ${rec.reasons.map((reason) => html`<li><code>${reason.code}</code> <bdi>${reason.message}</bdi></li>`)}
                </ul>
              </dd>`
          : ''
      }
    </dl>
    ${rec.summary === undefined ? '' : html`<p class="summary">${rec.summary}</p>`}`;
}

function details(rec: NonNullable<AuditRecord['record']>, r: AuditRecord): SafeHtml {
  const { anchors } = rec;
  return html`<h3>Artifacts</h3>
    ${
      rec.artifacts.length === 0
        ? html`<p class="empty">None observed.</p>`
        : html`<table class="artifacts">
            <thead>
              <tr>
                <th>path</th>
                <th>sha256</th>
                <th>size</th>
                <th>git blob</th>
              </tr>
            </thead>
            <tbody>
              ${rec.artifacts.map(
                (a) =>
                  html`<tr>
                    <td><bdi>${a.path}</bdi></td>
                    <td class="mono">${a.sha256}</td>
                    <td>${a.size}</td>
                    <td class="mono">${a.blob}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h3>Anchors</h3>
    <dl class="facts anchors">
      <dt>base commit</dt>
      <dd class="mono">${anchors.baseCommit ?? '(none: the repository had no commit)'}</dd>
      <dt>base tree</dt>
      <dd class="mono">${anchors.baseTree}</dd>
      <dt>candidate tree</dt>
      <dd class="mono">${anchors.candidateTree}</dd>
      <dt>branch</dt>
      <dd><bdi>${anchors.branch ?? '—'}</bdi></dd>
    </dl>
    <h3>Witnesses</h3>
    ${
      rec.witnesses.length === 0
        ? html`<p class="empty">None run at record time.</p>`
        : html`<table class="witnesses">
            <thead>
              <tr>
                <th>command</th>
                <th>result</th>
                <th>duration</th>
              </tr>
            </thead>
            <tbody>
              ${rec.witnesses.map(
                (w) =>
                  html`<tr>
                    <td><code>${w.command}</code></td>
                    <td>
                      ${w.timedOut ? 'timed out' : w.exitCode === null ? `signal ${w.signal ?? '?'}` : `exit ${w.exitCode}`}
                    </td>
                    <td>${w.durationMs} ms</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h3>Signatures</h3>
    ${
      r.signatures.length === 0
        ? html`<p class="empty">Unsigned.</p>`
        : html`<table class="signatures">
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
          </table>`
    }`;
}
