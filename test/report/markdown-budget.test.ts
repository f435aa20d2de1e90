/**
 * The Markdown job summary stays under GitHub's limit (issue 16, item 10): the runner drops a
 * `$GITHUB_STEP_SUMMARY` over 1 MiB whole, so a ledger with long agent-written text or many
 * records must still give a summary — long cells cut, and a closing line that says it was cut
 * and where to see everything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MARKDOWN_BUDGET_BYTES, renderMarkdown } from '../../src/report/markdown.js';
import type { AuditRecord, AuditReport } from '../../src/report/model.js';
import { cliText, makeUser, record } from '../adversarial/helpers.js';
import { cleanup, gitdir, writeFiles } from '../helpers/git.js';

afterEach(cleanup);

const MIB = 1024 * 1024;

function bigReport(records: number, text: string): AuditReport {
  const rows: AuditRecord[] = [];
  for (let i = 0; i < records; i++) {
    const check = {
      id: 'c',
      check: 'reference',
      subject: `${text}:${i + 1}`,
      verdict: 'contradicted' as const,
      detail: text,
    };
    rows.push({
      id: `sha256:${i.toString(16).padStart(64, '0')}`,
      verdict: 'contradicted',
      verdicts: ['contradicted'],
      integrity: false,
      record: {
        format: 'ledger',
        task: text,
        recordedAt: '2026-01-01T00:00:00.000Z',
        claimedStatus: 'success',
        effectiveStatus: 'failed',
        reasons: [],
        artifacts: [],
        anchors: { baseCommit: null, baseTree: 'a'.repeat(40), candidateTree: 'b'.repeat(40) },
        witnesses: [],
      },
      checks: [check],
      signatures: [],
    });
  }
  return {
    generatedAt: '2026-01-01T00:00:00.000Z',
    ledgerVersion: '0.0.0',
    ok: false,
    exitCode: 1,
    strict: false,
    notes: [text],
    ledger: [],
    records: rows,
    counts: { contradicted: records, unverifiable: 0, stale: 0, verified: 0 },
    tasks: [text],
  };
}

/** Every line of a Markdown table is whole: it starts and ends with a cell border. */
function tablesAreWhole(markdown: string): void {
  for (const line of markdown.split('\n'))
    if (line.startsWith('|')) expect(line.endsWith('|'), line.slice(-80)).toBe(true);
}

describe('the Markdown job summary', () => {
  it('stays under 1 MiB for a ledger whose summary would be ~1.6 MB, cutting long cells and saying so', () => {
    const markdown = renderMarkdown(bigReport(250, '-'.repeat(1070)));
    const bytes = Buffer.byteLength(markdown);
    expect(bytes).toBeLessThanOrEqual(MARKDOWN_BUDGET_BYTES);
    expect(MARKDOWN_BUDGET_BYTES).toBeLessThan(MIB);
    expect(markdown).toMatch(/\n> \*\*truncated\*\*:.*ledger report --html.*\n$/);
    tablesAreWhole(markdown);
    // Every record still has its row: cutting cells was enough here.
    expect(markdown.split('\n').filter((l) => l.startsWith('| ❌ |'))).toHaveLength(250);
  });

  it('stops whole lines at the budget when even cut cells are too many, and says how many are left out', () => {
    const markdown = renderMarkdown(bigReport(20_000, 'x'.repeat(100)));
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(MARKDOWN_BUDGET_BYTES);
    expect(markdown).toMatch(
      /\n> \*\*truncated\*\*:.*\d+ more line\(s\).*ledger report --html.*\n$/,
    );
    tablesAreWhole(markdown);
  });

  it('is unchanged, with no truncated line, when it fits', () => {
    const markdown = renderMarkdown(bigReport(3, 'short text'));
    expect(markdown).not.toMatch(/truncated/);
    expect(markdown).toContain('short text');
  });

  it('report --markdown - on a ledger of 200 long failing references prints under 1 MiB, with the truncated line', async () => {
    const user = makeUser();
    const dir = gitdir();
    writeFiles(dir, { 'src/app.ts': 'one\n' });
    const long = `src/${'-'.repeat(4000)}.ts`;
    const handoff = {
      status: 'success',
      summary: 'many references',
      task: `T-${'-'.repeat(4000)}`,
      references: Array.from({ length: 200 }, (_, i) => ({ path: long, line: i + 1 })),
    };
    await record(user, dir, {
      from: { bytes: new TextEncoder().encode(JSON.stringify(handoff)), fileName: 'handoff.json' },
    });
    const run = await cliText(user, dir, ['report', '--markdown', '-']);
    expect(run.code, run.stderr).toBe(1);
    expect(Buffer.byteLength(run.stdout)).toBeLessThanOrEqual(MARKDOWN_BUDGET_BYTES);
    expect(run.stdout).toMatch(/^## Ledger verification: ❌ claims do not hold/);
    expect(run.stdout).toMatch(/\n> \*\*truncated\*\*:.*ledger report --html.*\n$/);
    tablesAreWhole(run.stdout);
  });
});
