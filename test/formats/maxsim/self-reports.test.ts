/**
 * What a summary reports of itself below its opening (self-reports.ts). The GSD family's executor
 * appends `## Self-Check: PASSED` or `## Self-Check: FAILED` after checking that the files and
 * commits it names exist, and its orchestrator treats the FAILED marker as a failed plan; it was
 * not read, so `status: complete` over a FAILED self-check recorded success (a public summary
 * does exactly that: its self-check failed on a blocker its status did not name). GSD-2's
 * migration joins task summaries under `verification_result: passed` whatever they said; each
 * task's own `**Status:**` label was dropped but the first. Fixtures in those shapes, in our
 * words. Parsed in memory, then once through record and verify.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const DIR = join(PROJECT_ROOT, 'fixtures/handoffs/maxsim');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-05-03T10:00:00Z') };
function parsed(text: string, fileName = '07-02-SUMMARY.md'): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const codes = (h: ParsedHandoff) => h.reasons.map((r) => r.code);
const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];

const FAILED = fixture('summary-self-check-failed.md');
const PASSED = fixture('summary-self-check-passed-mentions-failed.md');
const JOINED = fixture('gsd2-slice-joined-task-partial.md');
/** FAILED's text with its self-check heading (and the line under it) rewritten. */
const withCheck = (heading: string) => FAILED.replace('## Self-Check: FAILED', heading);

describe('## Self-Check: FAILED', () => {
  it('fails a summary that claims complete, naming the heading’s line', () => {
    const h = parsed(FAILED);
    expect(h.status).toBe('failed');
    expect(h.claims.status).toBe('complete');
    const r = h.reasons.find((x) => x.code === 'MAXSIM_SELF_CHECK_FAILED');
    expect(r?.message).toMatch(/^line 30: ## Self-Check: FAILED: /);
    expect(r?.subject).toBe('Self-Check (line 30)');
  });

  it('is read at any level and spelling the family writes, and as ❌ or FAIL', () => {
    for (const heading of [
      '### Self-Check: FAILED',
      '## Self Check: FAILED',
      '## self-check — failed (1 missing file)',
      '## **Self-Check: FAILED**',
      '## Self-Check: ❌',
      '## Self-Check: FAIL',
    ])
      expect(parsed(withCheck(heading)).status, heading).toBe('failed');
  });

  it('a bare `## Self-Check` is judged by the line under it, then its items: FAILED or MISSING fails, PASSED does not', () => {
    const bare = parsed(withCheck('## Self-Check\n\n**FAILED**: one file is missing'));
    expect(bare.status).toBe('failed');
    expect(bare.reasons.find((r) => r.code === 'MAXSIM_SELF_CHECK_FAILED')?.message).toContain(
      '## Self-Check / **FAILED**: one file is missing',
    );
    // kodiai writes its passed ones this way (M012/S03).
    expect(parsed(withCheck('## Self-Check\n\nPASSED')).status).toBe('success');
    // Its items are read too (red team 15): the fixture's `- MISSING:` item below fails it.
    expect(parsed(withCheck('## Self-Check\n\n- FOUND: src/export/csv.ts')).status).toBe('failed');
    const found = FAILED.replace(
      /## Self-Check: FAILED[\s\S]*$/,
      '## Self-Check\n\n- FOUND: src/export/csv.ts\n',
    );
    expect(parsed(found).status).toBe('success');
  });

  it('PASSED, however qualified, is not a failure', () => {
    for (const heading of [
      '## Self-Check: PASSED',
      '## Self-Check: PASSED (with Task 2 pending user action)',
      '## Self-Check: PASSED (files) / N/A (commits)',
    ])
      expect(parsed(withCheck(heading)).status, heading).toBe('success');
  });

  it('a mention in a list item or inside a code fence is not the marker', () => {
    const h = parsed(PASSED, '07-03-SUMMARY.md');
    expect(h.status).toBe('success');
    expect(codes(h)).not.toContain('MAXSIM_SELF_CHECK_FAILED');
  });

  it('FAILED that also says it passed or was fixed is neither: unchecked with its line', () => {
    const h = parsed(withCheck('## Self-Check: FAILED, then fixed and re-ran: PASSED'));
    expect(h.status).toBe('success');
    expect(unchecked(h)).toEqual([
      expect.objectContaining({ line: 30, why: expect.stringContaining('neither taken') }),
    ]);
  });

  it('a contract handoff’s own Self-Check is read too', () => {
    const contract = fixture('contract-template-filled.md');
    expect(parsed(contract, 'HANDOFF.md').status).toBe('success');
    const failed = parsed(`${contract}\n## Self-Check: FAILED\n\n- MISSING: a.ts\n`, 'HANDOFF.md');
    expect(failed.status).toBe('failed');
    expect(codes(failed)).toContain('MAXSIM_SELF_CHECK_FAILED');
  });
});

describe('each joined part’s own **Status:**', () => {
  it('a task that says Partial under the slice’s passed: partial, naming its line', () => {
    const h = parsed(JOINED, 'S05-SUMMARY.md');
    expect(h.status).toBe('partial');
    expect(h.claims.status).toBe('PASS');
    expect(h.reasons.find((r) => r.code === 'MAXSIM_PART_STATUS')?.message).toBe(
      "line 38: a part of this summary says **Status:** Partial, worse than front matter verification_result's passed",
    );
  });

  it('every part Complete, or no label at all: as before', () => {
    const complete = JOINED.replace('**Status:** Partial', '**Status:** Complete');
    expect(parsed(complete, 'S05-SUMMARY.md').status).toBe('success');
    expect(parsed(fixture('gsd2-slice-joined-task-summaries.md'), 'S02-SUMMARY.md').status).toBe(
      'success',
    );
  });

  it('Blocked or Failed in a part is taken; the worst part wins', () => {
    const blocked = JOINED.replace('**Status:** Partial', '**Status:** Blocked');
    expect(parsed(blocked, 'S05-SUMMARY.md').status).toBe('blocked');
    const failed = JOINED.replace('**Status:** Complete', '**Status:** Failed');
    expect(parsed(failed, 'S05-SUMMARY.md').status).toBe('failed');
  });

  it('a word this reader does not know is unchecked with its line, never refused', () => {
    const h = parsed(
      JOINED.replace('**Status:** Partial', '**Status:** Operationally pending'),
      'S05-SUMMARY.md',
    );
    expect(h.status).toBe('success');
    expect(unchecked(h)).toEqual([
      {
        line: 38,
        text: '**Status:** Operationally pending',
        why: "a part's status in words this reader does not know",
      },
    ]);
  });

  it('a label under front matter that claims complete is no longer dropped', () => {
    const h = parsed(
      FAILED.replace('## Self-Check: FAILED', '## Self-Check: PASSED').replace(
        '# Phase 7 Plan 2: CSV Export Summary\n',
        '# Phase 7 Plan 2: CSV Export Summary\n\n**Status:** Partial\n',
      ),
    );
    expect(h.status).toBe('partial');
    expect(codes(h)).toContain('MAXSIM_PART_STATUS');
  });

  it('a label under a deeper heading (a milestone’s criteria) is not a part’s status', () => {
    const criteria = JOINED.replace('**Status:** Partial', '**Status:** Complete').replace(
      '## What Was Built\n\n- The uploader',
      '### ⚠️ Resume\n\n**Status:** Operationally pending\n\n## What Was Built\n\n- The uploader',
    );
    const h = parsed(criteria, 'S05-SUMMARY.md');
    expect(h.status).toBe('success');
    expect(unchecked(h)).toEqual([]);
  });
});

describe('status words real summaries use that were refused', () => {
  const withStatus = (word: string) =>
    FAILED.replace('status: complete', `status: ${word}`).replace(
      '## Self-Check: FAILED',
      '## Self-Check: PASSED',
    );
  it('`halted` (a coordinator stopped the plan) records as blocked', () => {
    const h = parsed(withStatus('halted'));
    expect(h.status).toBe('blocked');
    expect(h.claims.status).toBe('blocked');
  });

  it('`superseded` (part landed, a later plan took the rest) and `in-progress` record as partial', () => {
    for (const word of ['superseded', 'in-progress', 'In progress']) {
      const h = parsed(withStatus(word));
      expect(h.status, word).toBe('partial');
      expect(h.claims.status, word).toBe('PARTIAL');
    }
  });

  it('a word none of the family writes is still refused, with its line', () => {
    const r = maxsim.parse(new TextEncoder().encode(withStatus('shipped-ish')), {
      ...ctx,
      fileName: '07-02-SUMMARY.md',
    });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.problems[0]?.message).toContain('front matter line 13: status');
  });
});

describe('through record and verify', () => {
  it('complete over a FAILED self-check: the record is failed and verify exits 1', async () => {
    const repo = gitdir({ files: { 'README.md': 'x\n', 'src/commands/export.ts': 'old\n' } });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, { 'src/export/csv.ts': 'x\n', 'src/commands/export.ts': 'new\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', '07-02: csv export');
    const bytes = new TextEncoder().encode(FAILED);
    const recorded = await recordHandoff({
      cwd: repo,
      base,
      from: { bytes, fileName: '07-02-SUMMARY.md' },
    });
    expect(recorded.record.observed.effectiveStatus).toBe('failed');
    const report = await verifyRepository({ cwd: repo });
    expect(report.exitCode).toBe(1);
  });
});
