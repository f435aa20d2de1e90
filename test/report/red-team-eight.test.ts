/**
 * Red team, round eight, on the audit page and the Markdown summary:
 * 1. the evidence (claimed-file diffs, output tails) was computed for every claimed file of every
 *    record, after the page's budget could take no more and for a Markdown-only render that
 *    shows none: the work is now bounded (counted here through the store port, never timed);
 * 2. the summary printed a lifecycle step's `--by` as fact;
 * 3. the details' floor was spent on stubs, so past ~4,000 records no record had details;
 * 4. the task filter printed each task uncapped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { recordHandoff } from '../../src/app/record.js';
import { writeReport } from '../../src/app/report.js';
import { attachEvidence } from '../../src/app/report-evidence.js';
import { signRecord } from '../../src/app/sign.js';
import type { LedgerRecord } from '../../src/model/record.js';
import { NO_ROOM, PageBudget } from '../../src/report/bounded.js';
import { escapeMarkdown } from '../../src/report/escape.js';
import { MIN_DETAILS_BYTES, PAGE_BYTES, renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { AuditRecord, AuditReport } from '../../src/report/model.js';
import { MemoryStore } from '../../src/store/memory.js';
import { encodeTree, MODE } from '../../src/store/objects.js';
import type { ObjectInfo, ObjectReader } from '../../src/store/port.js';
import type { Check } from '../../src/verify/types.js';
import { cleanup, gitdir, tempDir, writeFiles } from '../helpers/git.js';
import { honest, lie, reviewerPolicy } from '../helpers/lifecycle.js';
import { sshKeyPair } from '../helpers/ssh-key.js';

afterEach(cleanup);

/** 64 hex digits, distinct in their first twelve (the summary shows those). */
const hex = (i: number) => [...i.toString(16).padStart(64, '0')].reverse().join('');

function auditRecord(i: number, over: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: `sha256:${hex(i)}`,
    verdict: 'unverifiable',
    verdicts: ['unverifiable', 'verified'],
    integrity: false,
    record: {
      format: 'ledger',
      task: `T-${i}`,
      summary: 'Add the parser for the config file and its tests; refactor the loader.',
      recordedAt: '2026-01-01T00:00:00.000Z',
      claimedStatus: 'success',
      effectiveStatus: 'success',
      reasons: [],
      artifacts: [],
      anchors: { baseCommit: null, baseTree: 'b'.repeat(40), candidateTree: 'c'.repeat(40) },
      witnesses: [],
    },
    checks: [
      { id: 'id', check: 'id', subject: 'record', verdict: 'verified', detail: 'ok' },
      {
        id: 'observed.witnesses[0]',
        check: 'witness',
        subject: 'npm test',
        verdict: 'unverifiable',
        detail: 'recorded exit 0; not re-run',
      },
    ],
    signatures: [],
    lifecycle: { state: 'pending' },
    ...over,
  };
}

function auditReport(records: AuditRecord[]): AuditReport {
  const tasks = [
    ...new Set(records.flatMap((r) => (r.record?.task === undefined ? [] : [r.record.task]))),
  ].sort();
  return {
    generatedAt: '2026-01-01T00:00:00.000Z',
    ledgerVersion: '0.0.0',
    ok: false,
    exitCode: 1,
    strict: false,
    notes: [],
    ledger: [],
    records,
    counts: { contradicted: 0, unverifiable: records.length, stale: 0, verified: 0 },
    tasks,
  };
}

/** The memory store, counting every read of a blob and the bytes it handed over. */
class CountingReader implements ObjectReader {
  blobReads = 0;
  blobBytes = 0;
  constructor(private readonly store: MemoryStore) {}
  private count(oid: string): void {
    if (this.store.objects.get(oid)?.type === 'blob') this.blobReads++;
  }
  async read(oid: string) {
    this.count(oid);
    const object = await this.store.read(oid);
    if (object?.type === 'blob') this.blobBytes += object.bytes.length;
    return object;
  }
  async readChunks(
    oid: string,
    onChunk: (chunk: Uint8Array) => void,
  ): Promise<ObjectInfo | undefined> {
    this.count(oid);
    return this.store.readChunks(oid, (chunk) => {
      if (this.store.objects.get(oid)?.type === 'blob') this.blobBytes += chunk.length;
      onChunk(chunk);
    });
  }
}

/**
 * `records` records, each claiming `files` files changed from `before` to `after` (every file
 * the same two blobs, as in the red team's repository), base and candidate trees in memory.
 */
async function claimedFiles(
  records: number,
  files: number,
  before: string,
  after: string,
): Promise<{
  store: MemoryStore;
  report: AuditReport;
  stored: Map<string, { record: LedgerRecord }>;
}> {
  const store = new MemoryStore();
  const a = await store.write('blob', new TextEncoder().encode(before));
  const b = await store.write('blob', new TextEncoder().encode(after));
  const names = Array.from({ length: files }, (_, i) => `d${i + 1}.txt`);
  const baseTree = await store.write(
    'tree',
    encodeTree(names.map((name) => ({ mode: MODE.file, name, oid: a }))),
  );
  const candidateTree = await store.write(
    'tree',
    encodeTree(names.map((name) => ({ mode: MODE.file, name, oid: b }))),
  );
  const rows = Array.from({ length: records }, (_, i) => {
    const row = auditRecord(i);
    row.record!.anchors = { baseCommit: null, baseTree, candidateTree };
    row.record!.artifacts = names.map((path) => ({
      path,
      sha256: 'f'.repeat(64),
      size: after.length,
      blob: b,
    }));
    return row;
  });
  const stored = new Map(
    rows.map((r) => [r.id, { record: { observed: { witnesses: [] } } as unknown as LedgerRecord }]),
  );
  return { store, report: auditReport(rows), stored };
}

describe('the evidence work is bounded (red team 8, defect 1)', () => {
  it('once a diff does not fit, no later claimed file is read or diffed, and each says there was no room', async () => {
    // 5,000 changed lines a file: each diff is 60 shown lines, far more than the 300 left.
    const lines = (c: string) => `${Array.from({ length: 5000 }, () => c).join('\n')}\n`;
    const { store, report, stored } = await claimedFiles(3, 20, lines('a'), lines('b'));
    const reader = new CountingReader(store);
    await attachEvidence(reader, report, stored, new PageBudget(300));
    // The first file's two blobs, then nothing: before, all 3 × 20 files were read (120 reads).
    expect(reader.blobReads).toBeLessThanOrEqual(2);
    const notes = report.records.flatMap((r) => r.record!.files!.map((f) => f.note));
    expect(notes).toHaveLength(60);
    expect(notes.every((n) => n === NO_ROOM)).toBe(true);
    // The page says once that diffs were left out for room.
    expect(renderHtml(report)).toContain('id="no-room"');
  });

  it('the bytes read for diffs are bounded per page, whatever the records claim', async () => {
    // ~200 KB files with one line changed: each diff is small and fits, only the reading is not.
    const body = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n');
    const [before, after] = [`${body}\nold\n`, `${body}\nnew\n`];
    const { store, report, stored } = await claimedFiles(2, 20, before, after);
    const reader = new CountingReader(store);
    const readBytes = 1_000_000;
    await attachEvidence(reader, report, stored, new PageBudget(100_000, { readBytes }));
    // Past the read budget by one file's two blobs at most; before, all 40 files (~16 MB).
    expect(reader.blobBytes).toBeLessThanOrEqual(readBytes + before.length + after.length);
    const files = report.records.flatMap((r) => r.record!.files!);
    expect(files.filter((f) => f.diff !== undefined).length).toBeGreaterThan(0);
    expect(files.filter((f) => f.note === NO_ROOM).length).toBeGreaterThan(30);
  });

  it('an unchanged claimed file (the same blob on both sides) is not read at all', async () => {
    const same = 'same\n'.repeat(1000);
    const { store, report, stored } = await claimedFiles(2, 20, same, same);
    const reader = new CountingReader(store);
    await attachEvidence(reader, report, stored);
    expect(reader.blobReads).toBe(0);
    expect(report.records[0]!.record!.files!.every((f) => f.change === 'unchanged')).toBe(true);
  });

  it('a Markdown-only report (the CI summary) reads no evidence; the HTML page still does', async () => {
    const dir = gitdir({ files: { 'src/app.ts': 'one\n' } });
    writeFiles(dir, { 'src/app.ts': 'two\n' });
    await recordHandoff({
      cwd: dir,
      status: 'success',
      summary: 'change app',
      artifacts: ['src/app.ts'],
      sign: false,
    });
    const summary = await writeReport({ cwd: dir, markdownFile: '-' });
    expect(summary.markdown).toContain('| lifecycle |');
    expect(summary.report.records[0]!.record!.files).toBeUndefined();
    const page = await writeReport({ cwd: dir, htmlFile: join(tempDir(), 'page.html') });
    expect(page.report.records[0]!.record!.files![0]!.diff?.added).toBe(1);
  });
});

describe("the summary's lifecycle cell does not take a step's --by for fact (red team 8, defect 2)", () => {
  const FORGED = 'alice (maintainer, SSH signature verified)';

  function row(markdown: string, id: string): string {
    return markdown.split('\n').find((l) => l.startsWith('|') && l.includes(id.slice(0, 19)))!;
  }

  it('an unsigned step: its words are quoted as its own, after "no trusted reviewer signed"', () => {
    const step = `sha256:${hex(99)}`;
    const unsigned = auditRecord(1, {
      lifecycle: { state: 'accepted', step, by: FORGED, at: '2026-01-01T00:00:00.000Z' },
    });
    const signed = auditRecord(2, {
      lifecycle: { state: 'accepted', step, by: FORGED, reviewer: 'rita@reviewers.example.com' },
    });
    const long = auditRecord(3, {
      lifecycle: { state: 'rejected', step, by: 'x'.repeat(1000), resolved: true },
    });
    const markdown = renderMarkdown(auditReport([unsigned, signed, long]));
    const first = row(markdown, unsigned.id);
    expect(first).not.toMatch(/accepted by/);
    expect(first).toContain(
      escapeMarkdown(
        `accepted (no trusted reviewer signed the step; it says: by ${JSON.stringify(FORGED)})`,
      ),
    );
    expect(row(markdown, signed.id)).toContain(
      escapeMarkdown('accepted, signed by reviewer rita@reviewers.example.com'),
    );
    expect(row(markdown, signed.id)).not.toContain('alice');
    // However long the words, the cell still says they are unsigned, and that it resolved.
    const third = row(markdown, long.id);
    expect(third).toContain(
      escapeMarkdown('rejected (no trusted reviewer signed the step; it says: by "xxx'),
    );
    expect(third).toContain(escapeMarkdown('…") (resolved)'));
  });

  // Red team, round fifteen: the words were printed bare inside ledger's parenthesis, so a --by
  // of `bot) (resolved` made a failing record's cell read, byte for byte, as a resolved one's.
  it("attack: a step's --by cannot close the cell's parenthesis: it is quoted, in the summary and on the page", async () => {
    const { policy } = reviewerPolicy();
    const dir = gitdir();
    const lied = await lie(dir);
    writeFiles(dir, { 'b.txt': 'fix\n' });
    const fix = await honest(dir, 'fixed');
    await applyLifecycle({
      cwd: dir,
      id: lied,
      action: 'supersede',
      with: fix,
      by: 'bot) (resolved',
    });
    const html = join(tempDir(), 'report.html');
    const out = await writeReport({
      cwd: dir,
      policyFile: policy,
      markdownFile: '-',
      htmlFile: html,
    });
    expect(out.report.exitCode).toBe(1);
    const cell = 'superseded (no trusted reviewer signed the step; it says: by "bot) (resolved")';
    const summary = row(out.markdown!, lied);
    expect(summary).toContain(`${escapeMarkdown(cell)} |`);
    expect(summary).not.toContain(escapeMarkdown('by bot) (resolved)'));
    expect(readFileSync(html, 'utf8')).toContain(
      'superseded (no trusted reviewer signed the step; it says: by <bdi>&quot;bot) (resolved&quot;</bdi>)',
    );
  });

  it('through the real accept: the agent’s own unsigned --by is a claim; a trusted reviewer’s signature on the step is named', async () => {
    const dir = gitdir();
    const id = (
      await recordHandoff({
        cwd: dir,
        status: 'success',
        summary: 'add a',
        witnesses: ['true'],
        sign: false,
      })
    ).id;
    const step = await applyLifecycle({ cwd: dir, id, action: 'accept', by: FORGED });
    const unsigned = await writeReport({ cwd: dir, markdownFile: '-' });
    const cell = row(unsigned.markdown!, id);
    expect(cell).not.toMatch(/accepted by alice/);
    expect(cell).toContain(
      escapeMarkdown('accepted (no trusted reviewer signed the step; it says: by "alice'),
    );

    // A policy that trusts rita as a reviewer, and rita signs the step.
    const keys = tempDir();
    const { key, pub } = sshKeyPair(keys, 'reviewer');
    const allowed = join(keys, 'allowed_signers');
    writeFileSync(allowed, `rita@reviewers.example.com namespaces="ledger" ${pub}\n`);
    const policy = join(keys, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: true, commands: [] },
        witnessTimeoutSeconds: 30,
        signatures: {
          allowedSigners: allowed,
          required: false,
          roles: { reviewer: ['*@reviewers.example.com'] },
        },
      }),
    );
    // Without the signature the policy changes nothing: still the step's own words.
    const trusted = await writeReport({ cwd: dir, markdownFile: '-', policyFile: policy });
    expect(row(trusted.markdown!, id)).toContain(escapeMarkdown('no trusted reviewer signed'));
    await signRecord({ cwd: dir, id: step.id, signingKey: key });
    const signed = await writeReport({ cwd: dir, markdownFile: '-', policyFile: policy });
    expect(row(signed.markdown!, id)).toContain(
      escapeMarkdown('accepted, signed by reviewer rita@reviewers.example.com'),
    );
    expect(signed.report.records.find((r) => r.id === id)!.lifecycle?.reviewer).toBe(
      'rita@reviewers.example.com',
    );
  });
});

/** The red team's page: one contradicted record first, then `n` ordinary ones. */
function manyRecords(n: number, task: (i: number) => string): AuditReport {
  const bad: Check = {
    id: 'observed.effectiveStatus',
    check: 'status',
    subject: 'success',
    verdict: 'contradicted',
    detail: 'claimed success, effective failed: WITNESS_FAILED: witness exited with 1: npm test',
  };
  const records = [
    auditRecord(0, { verdict: 'contradicted', verdicts: ['contradicted', 'verified'] }),
    ...Array.from({ length: n }, (_, i) => auditRecord(i + 1)),
  ];
  records[0]!.checks = [records[0]!.checks[0]!, bad];
  for (const [i, r] of records.entries()) r.record!.task = task(i);
  return auditReport(records);
}

/** Record `index`'s details on the page, without their closing tag. */
function detailsOf(page: string, index: number, from = 0): string {
  const start = page.indexOf(`id=r${index}>`, from);
  return page.slice(start, page.indexOf('</details>\n', start));
}

const STUB = 'Details left out';

/**
 * What the records' full details add to the page beyond their stubs: each full record's body
 * (after its summary) less the stub's paragraph it replaced.
 */
function detailsBeyondStubs(page: string, records: number): { extra: number; full: number } {
  const stubBody = /<\/summary>(<p class="empty">Details left out[^\n]*?<\/p>)/.exec(page)![1]!;
  let extra = 0;
  let full = 0;
  // Records are in page order: each is looked for after the one before it.
  let from = page.indexOf('<div id="records">');
  for (let i = 0; i < records; i++) {
    const section = detailsOf(page, i, from);
    from += section.length;
    if (section.includes(STUB)) continue;
    full++;
    extra +=
      Buffer.byteLength(section.slice(section.indexOf('</summary>') + 10)) -
      Buffer.byteLength(stubBody);
  }
  return { extra, full };
}

describe("the records' details keep their floor (red team 8, defect 3)", () => {
  for (const [name, n, task] of [
    ['4,000 honest records', 4000, (i: number) => `T-${i}`],
    [
      '1,000 records with tasks padded by the agent with quotes',
      1000,
      (i: number) => `T-${i}${'"'.repeat(116)}`,
    ],
  ] as const) {
    it(`${name}: the contradicted record at the top keeps its details, within the floor`, () => {
      const page = renderHtml(manyRecords(n, task));
      expect(detailsOf(page, 0)).toContain('WITNESS_FAILED');
      expect(detailsOf(page, 0)).not.toContain(STUB);
      // Rows and stubs alone fill the page: the details get their floor, all of it but the last
      // record that did not fit, and no more.
      expect(Buffer.byteLength(page)).toBeGreaterThan(PAGE_BYTES);
      const { extra, full } = detailsBeyondStubs(page, n + 1);
      expect(full).toBeGreaterThan(100);
      expect(extra).toBeLessThanOrEqual(MIN_DETAILS_BYTES);
      expect(extra).toBeGreaterThan(MIN_DETAILS_BYTES - 5_000);
    });
  }

  it('a record whose details are too large to fit is stubbed, and the records after it keep theirs', () => {
    const huge = auditRecord(0, { verdict: 'contradicted', verdicts: ['contradicted'] });
    huge.checks = Array.from({ length: 5000 }, (_, i) => ({
      id: `c${i}`,
      check: 'reference',
      subject: `src/${i}.ts`,
      verdict: 'contradicted' as const,
      detail: 'y'.repeat(490),
    }));
    const report = auditReport([huge, auditRecord(1), auditRecord(2)]);
    const page = renderHtml(report);
    expect(detailsOf(page, 0)).toContain(STUB);
    expect(detailsOf(page, 1)).toContain('<ul class=checks>');
    expect(detailsOf(page, 2)).toContain('<ul class=checks>');
    expect(Buffer.byteLength(page)).toBeLessThan(2 * 1024 * 1024);
  });

  it('1,000 ordinary records: every one has its details and the page stays under 2 MB', () => {
    const page = renderHtml(manyRecords(999, (i) => `T-${i}`));
    expect(page).not.toContain(STUB);
    expect(Buffer.byteLength(page)).toBeLessThan(2 * 1024 * 1024);
    expect(MIN_DETAILS_BYTES).toBeLessThan(PAGE_BYTES);
  });
});

describe('the task filter is capped like the rows (red team 8, defect 4)', () => {
  const select = (page: string) => /<select id="filter-task">[\s\S]*?<\/select>/.exec(page)![0];

  it('a 4,000-character task is a capped option; two tasks sharing their first 120 characters stay two choices that filter apart', () => {
    const prefix = `W${'"'.repeat(119)}`;
    const one = `${prefix}${'"'.repeat(3880)}`;
    const two = `${prefix}${"'".repeat(3880)}`;
    const records = [auditRecord(1), auditRecord(2), auditRecord(3)];
    records[0]!.record!.task = one;
    records[1]!.record!.task = two;
    records[2]!.record!.task = 'T-3';
    const page = renderHtml(auditReport(records));
    const options = [...select(page).matchAll(/<option value="(t\d+)">([^<]*)<\/option>/g)];
    expect(options).toHaveLength(3);
    // Before: each option held its whole task, 24 KB of &quot; apiece.
    expect(select(page).length).toBeLessThan(3_000);
    for (const [, , label] of options) expect(label!.length).toBeLessThan(900);
    const labels = options.map((o) => o[2]);
    expect(new Set(labels).size).toBe(3);
    // Each row's filter value is the option of its own full task.
    const valueOf = (task: string) =>
      options.find((o) => o[1] === `t${auditReport(records).tasks.indexOf(task)}`)![1];
    for (const [i, r] of records.entries()) {
      const rowValue = new RegExp(`data-t="(t\\d+)"><td><a href="#r${i}">`).exec(page)![1];
      expect(rowValue).toBe(valueOf(r.record!.task!));
    }
    expect(valueOf(one)).not.toBe(valueOf(two));
  });
});
