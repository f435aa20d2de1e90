/**
 * A contract section written more than once (corpus round thirteen). GSD-2's migration joins a
 * phase's task summaries into one slice summary, each with its own `## Key Decisions` and `## Key
 * Files` (xbmc/kodiai M001/S03, M018/S03, M018/S04, M025/S04): refused before, "the Key Decisions
 * section appears more than once" — a false alarm on honest work. Sections that list claims are
 * read as the union of their occurrences, in document order; Status sections are read once when
 * they claim the same status, and refused, each named, when they do not. A failure in a later
 * occurrence is not hidden by an earlier one (GSD-2's own `extractSection` keeps the first).
 * Fixtures in kodiai's shapes, in our words (its text is not ours to keep).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import type { ParseContext, ParseResult } from '../../../src/formats/index.js';
import { detectFormat } from '../../../src/formats/registry.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const DIR = join(PROJECT_ROOT, 'fixtures/handoffs/maxsim');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-11T10:00:00Z') };
const parse = (text: string, fileName = 'S02-SUMMARY.md'): ParseResult =>
  maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName });
function handoff(text: string, fileName?: string) {
  const r = parse(text, fileName);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}

const SLICE = fixture('gsd2-slice-joined-task-summaries.md');
const JOINED = fixture('contract-two-handoffs-joined.md');

describe('a slice summary joined from its task summaries (GSD-2 migration)', () => {
  it('every Key Decisions section is read, in document order, and said to be repeated', () => {
    const h = handoff(SLICE);
    expect(h.status).toBe('success');
    expect((h.claims.decisions ?? []).map((d) => d.text.split(' ')[0])).toEqual([
      'Keys',
      'Entries',
      'Eviction',
      'A',
      'The',
      'The',
    ]);
    expect(h.claims.extra?.['repeatedSections']).toEqual([
      { section: 'Key Decisions', lines: [35, 49, 74] },
    ]);
  });

  it('every file: the first task’s `**Files created:**` label and each task’s Key Files', () => {
    const files = (handoff(SLICE).claims.artifacts ?? []).map((a) => `${a.action} ${a.path}`);
    // store.ts is created by the first task and changed by the second: relative to the slice's
    // base it is created, as the document names it first.
    expect(files).toEqual([
      'created src/cache/keys.ts',
      'created src/cache/store.ts',
      'created src/cache/store.test.ts',
      'created src/cache/evict.ts',
      'created src/cache/evict.test.ts',
      'modified src/commands/report.ts',
      'modified docs/cache.md',
    ]);
  });

  it('is taken for this format without its file name: one `## Summary` word, however often', () => {
    // Each task's `## Summary` counted as another team-result section: 0.35, refused (M018/S03).
    const detected = detectFormat(new TextEncoder().encode(SLICE));
    expect(detected.module.name).toBe('maxsim');
    expect(detected.score).toBeGreaterThanOrEqual(0.5);
  });

  async function verdicts(candidate: Record<string, string>) {
    const repo = gitdir({
      files: { 'README.md': 'x\n', 'src/commands/report.ts': 'old\n', 'docs/cache.md': 'old\n' },
    });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, candidate);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'S02: report cache');
    const bytes = new TextEncoder().encode(SLICE);
    await recordHandoff({ cwd: repo, base, from: { bytes, fileName: 'S02-SUMMARY.md' } });
    const report = await verifyRepository({ cwd: repo });
    const checks = report.records[0]!.checks.filter((c) => c.check === 'claim.artifact');
    return { exit: report.exitCode, bad: checks.filter((c) => c.verdict !== 'verified') };
  }
  const made = Object.fromEntries(
    ['keys', 'store', 'store.test', 'evict', 'evict.test'].map((f) => [`src/cache/${f}.ts`, 'x\n']),
  );

  it('through record and verify: honest, exit 0; a file only the last task names, unchanged: contradicted', async () => {
    const honest = await verdicts({
      ...made,
      'src/commands/report.ts': 'new\n',
      'docs/cache.md': 'new\n',
    });
    expect(honest).toEqual({ exit: 0, bad: [] });
    const lie = await verdicts({ ...made, 'src/commands/report.ts': 'new\n' });
    expect(lie.exit).toBe(1);
    expect(lie.bad.map((c) => `${c.subject} ${c.verdict}`)).toEqual(['docs/cache.md contradicted']);
  });
});

describe('a contract handoff that repeats its sections', () => {
  it('two handoffs joined: decisions, artifacts, deferred items and evidence of both', () => {
    const h = handoff(JOINED, 'HANDOFF.md');
    expect(h.status).toBe('success');
    expect(h.claims.status).toBe('PASS');
    expect(h.claims.decisions?.map((d) => d.text)).toEqual([
      'Read the config once at start',
      'Debounce reloads by 200 ms',
    ]);
    expect(h.claims.artifacts?.map((a) => `${a.action} ${a.path}`)).toEqual([
      'created src/config/watch.ts',
      'modified src/config/load.ts',
      'created src/config/debounce.ts',
    ]);
    expect(h.claims.deferred?.map((d) => d.category)).toEqual(['feature']);
    expect(h.claims.checks?.map((c) => `${c.command} ${c.result}`)).toEqual([
      'npm test passed',
      'npm run build passed',
    ]);
  });

  it('a failure in the second Status’s evidence fails the handoff (a first-wins reading hid it)', () => {
    const h = handoff(fixture('contract-joined-second-evidence-fails.md'), 'HANDOFF.md');
    expect(h.status).toBe('failed');
    expect(h.reasons.map((r) => r.code)).toContain('MAXSIM_FAILED_EVIDENCE');
  });

  it('Status sections that claim different statuses are refused, each named by its line', () => {
    const r = parse(fixture('contract-joined-statuses-disagree.md'), 'HANDOFF.md');
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems.map((p) => p.path)).toEqual(['Status']);
    expect(problems[0]?.message).toContain('line 10: PASS, line 27: FAIL');
  });

  it('statuses that agree in meaning (PASS and complete) are read once; a worse one is refused', () => {
    const second = JOINED.split('### Status\nPASS');
    const agree = handoff(
      `${second[0]}### Status\nPASS${second[1]}### Status\ncomplete${second[2]}`,
    );
    expect(agree.status).toBe('success');
    expect(agree.claims.status).toBe('PASS');
    const partial = parse(
      `${second[0]}### Status\nPASS${second[1]}### Status\nPARTIAL${second[2]}`,
    );
    expect(partial.ok).toBe(false);
  });

  it('a problem in a later occurrence names that occurrence’s line', () => {
    const r = parse(
      JOINED.replace('- Created: src/config/debounce.ts', '- Created:'),
      'HANDOFF.md',
    );
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toEqual(['Artifacts (line 24)[0]']);
  });
});
