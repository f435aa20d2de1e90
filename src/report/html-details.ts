/**
 * Each record's details on the audit page, collapsed: its facts, the checks that did not
 * verify, the evidence (a bounded diff per claimed file, the tail of each witness's output),
 * and the verified checks folded away. Written in page order, worst first, while the page's
 * budget lasts; past it a record keeps a stub that says how to see it.
 */
import type { Check, Verdict } from '../verify/types.js';
import { type DiffLine, NO_ROOM } from './bounded.js';
import { html, SafeHtml } from './escape.js';
import {
  badge,
  cap,
  FIELD_CHARS,
  h,
  kinds,
  rerunTail,
  SHORT,
  SUMMARY_CHARS,
} from './html-parts.js';
import type { AuditRecord, AuditReport, ClaimedFile } from './model.js';

/**
 * Every record's stub, and in page order (worst first) its full details instead while they fit
 * in `budget` bytes beyond the stubs — never less than `floor`, however many stubs there are, so
 * the worst records keep their details on a page of any length. A record whose details do not
 * fit keeps its stub and the records after it still get the room that is left.
 */
export function recordsDetails(report: AuditReport, budget: number, floor: number): SafeHtml {
  const stubs = report.records.map((r, i) => recordDetails(r, i, true));
  let left = Math.max(floor, budget - stubs.reduce((n, stub) => n + bytesOf(stub), 0));
  const parts = report.records.map((r, i) => {
    const stub = stubs[i]!;
    if (left <= 0) return stub;
    const full = recordDetails(r, i);
    const more = bytesOf(full) - bytesOf(stub);
    if (more > left) return stub;
    left -= more;
    return full;
  });
  return new SafeHtml(parts.map((p) => p.text).join('\n'));
}

/** What markup weighs on the page (UTF-8): agent text may be three bytes a character. */
export function bytesOf(markup: SafeHtml): number {
  return Buffer.byteLength(markup.text);
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
