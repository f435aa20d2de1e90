/**
 * The audit's pure parts, in memory: ordering (contradicted first, then by log order), the
 * Markdown summary's escaping of agent text, and the `html` tag's escaping of every value.
 */
import { describe, expect, it } from 'vitest';
import { escapeMarkdown, html } from '../../src/report/escape.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { toAuditReport } from '../../src/report/model.js';
import type { Check, VerifyReport } from '../../src/verify/types.js';

const id = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;
let checkCount = 0;
/** A check as verify reports it (with an id, where the verifier gives one). */
function check(verdict: Check['verdict'], subject = 's', detail = 'd'): Check {
  const made = { id: `c${checkCount++}`, check: 'claim.artifact', subject, verdict, detail };
  return made;
}

function verifyReport(records: { id: string; checks: Check[] }[]): VerifyReport {
  return { ok: false, exitCode: 1, ledger: [], records, notes: [] };
}

describe('toAuditReport', () => {
  it('lists contradicted records first, then unverifiable, stale, verified; newest first within each', () => {
    const report = toAuditReport({
      verify: verifyReport([
        { id: id(1), checks: [check('verified')] },
        { id: id(2), checks: [check('verified'), check('unverifiable')] },
        { id: id(3), checks: [check('contradicted'), check('unverifiable')] },
        { id: id(4), checks: [check('stale')] },
        { id: id(5), checks: [check('contradicted')] },
      ]),
      records: new Map(),
      logOrder: [id(5), id(4), id(3), id(2), id(1)],
      generatedAt: '2026-01-01T00:00:00.000Z',
      ledgerVersion: '0.0.0',
      strict: false,
    });
    expect(report.records.map((r) => r.id)).toEqual([id(5), id(3), id(2), id(4), id(1)]);
    expect(report.records[1]!.verdicts).toEqual(['contradicted', 'unverifiable']);
    expect(report.counts).toEqual({ verified: 2, contradicted: 2, unverifiable: 2, stale: 1 });
  });
});

describe('escaping', () => {
  const hostile =
    '<img src=x onerror=alert(1)> | **bold** [link](https://x.example) @someone `code` \u001b[31m\n# heading';

  it('Markdown: one line, no tag, link, emphasis, mention or table cell survives', () => {
    const text = escapeMarkdown(hostile);
    expect(text).not.toMatch(/[<>\n]/);
    expect(text).not.toMatch(/(^|[^\\])[|*[\]()@`#]/);
    expect(text).toContain('&lt;img');
    expect(text).toContain('\\\\x1b');
    const report = toAuditReport({
      verify: verifyReport([{ id: id(7), checks: [check('contradicted', hostile, hostile)] }]),
      records: new Map(),
      logOrder: [],
      generatedAt: '2026-01-01T00:00:00.000Z',
      ledgerVersion: '0.0.0',
      strict: false,
    });
    const markdown = renderMarkdown(report);
    const row = markdown
      .split('\n')
      .find((l) => l.includes(id(7).slice(0, 19)) && l.startsWith('|'))!;
    // Seven columns (| | record | task | claimed | effective | lifecycle | checks |): eight bars.
    expect(row.match(/(?<!\\)\|/g)).toHaveLength(8);
    expect(markdown).not.toContain('<img');
  });

  it('HTML: every interpolated value is escaped, in text and in attributes; nested markup is kept', () => {
    const value = `"'><script>x</script>&`;
    const out = html`<p title="${value}">${value}${html`<b>${value}</b>`}</p>`.text;
    const escaped = '&quot;&#39;&gt;&lt;script&gt;x&lt;/script&gt;&amp;';
    expect(out).toBe(`<p title="${escaped}">${escaped}<b>${escaped}</b></p>`);
  });
});

describe('the headline says what failed', () => {
  const strictOnly = () =>
    toAuditReport({
      verify: verifyReport([{ id: id(8), checks: [check('verified'), check('unverifiable')] }]),
      records: new Map(),
      logOrder: [id(8)],
      generatedAt: '2026-01-01T00:00:00.000Z',
      ledgerVersion: '0.0.0',
      strict: true,
    });

  it('a strict failure with nothing contradicted: the page and the summary both say so, not "claims do not hold"', () => {
    const page = renderHtml(strictOnly());
    const verdictLine = /<p class="meta" id="verdict-line">([\s\S]*?)<\/p>/.exec(page)![1]!;
    expect(verdictLine).toMatch(/nothing contradicted/);
    expect(verdictLine).not.toMatch(/claims do not hold/);
    expect(renderMarkdown(strictOnly())).toMatch(/nothing contradicted/);
  });

  it('a contradicted claim under --strict still reads "claims do not hold" on the page', () => {
    const report = toAuditReport({
      verify: verifyReport([{ id: id(9), checks: [check('contradicted'), check('unverifiable')] }]),
      records: new Map(),
      logOrder: [id(9)],
      generatedAt: '2026-01-01T00:00:00.000Z',
      ledgerVersion: '0.0.0',
      strict: true,
    });
    expect(renderHtml(report)).toMatch(/claims do not hold/);
  });
});
