/**
 * A status and the marks and words a reviewer reads with it (red team, round fifteen, readers
 * findings 2 and 7). Round fourteen judged a mark only before the word and only six marks: `**Status:**
 * Complete ❌`, `✖️ Complete`, `⛔ Complete`, a contract's `PASS ❌` or `PASS` over `FAIL` (one
 * paragraph: the page shows "PASS FAIL"), a joined part's `**Status:** ❌ Complete` and, under
 * front matter that says complete, `**Status:** &#x274C; Complete` (the page shows ❌) all
 * recorded success; `✅ Blocked` recorded blocked with no word. Now a fail mark anywhere on a
 * success line, or a status word that is no success right after it, contradicts it (failed, with
 * MAXSIM_STATUS_MARK_CONTRADICTS), as a pass mark before a blocked word does. Honest lines keep
 * their reading: a mark that agrees, a pass mark after a failed word, a partial one's detail.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup, git, gitdir, runCli, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-05-03T10:00:00Z') };
function parsed(text: string, fileName = '06-01-SUMMARY.md'): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const codes = (h: ParsedHandoff) => h.reasons.map((r) => r.code);
const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];

/** A phase summary whose opening label is `label`; `status` in its front matter when given. */
const summary = (label: string, status?: string): string =>
  [
    '---',
    'phase: 06-x',
    'plan: 01',
    'subsystem: ui',
    'key-files:',
    '  created:',
    '    - src/a.ts',
    ...(status === undefined ? [] : [`status: ${status}`]),
    '---',
    '',
    '# Phase 06 Plan 01: Thing Summary',
    '',
    label,
    '',
    '**One-liner.**',
    '',
    '## Files Created/Modified',
    '',
    '- `src/a.ts` - the module',
    '',
  ].join('\n');
/** The handoff contract's four sections, `status` under `### Status`. */
const contract = (status: string): string =>
  `### Key Decisions\n- Chose a plain module\n\n### Artifacts\n- Created: src/a.ts\n\n### Status\n${status}\n\nEvidence:\n- Tests: 47 passed, 0 failed (npm test output)\n\n### Deferred Items\nNone\n`;
/** A GSD-2 slice summary joined from two task summaries, the second's label `label`. */
const joined = (label: string): string =>
  [
    '---',
    'id: S01',
    'milestone: M001',
    'provides:',
    '  - module a',
    'key_files:',
    '  - src/a.ts',
    'verification_result: passed',
    'completed_at: 2026-07-15T10:00:00Z',
    '---',
    '',
    '# S01: Slice',
    '',
    '**Slice summary.**',
    '',
    '# 03-01 Summary',
    '',
    '**Status:** Complete',
    '',
    'Built a.',
    '',
    '# 03-02 Summary',
    '',
    label,
    '',
    'Tried b; its tests fail.',
    '',
  ].join('\n');
const JOINED_LABEL_LINE = 24;

describe('attack: a fail mark after the word, or one of the marks people write, contradicts it', () => {
  for (const label of [
    '**Status:** Complete ❌',
    '**Status:** ✖️ Complete',
    '**Status:** ✖ Complete',
    '**Status:** ⛔ Complete',
    '**Status:** 🔴 Complete',
    '**Status:** Complete — ❌ the export test fails',
  ])
    it(`attack: the opening label ${label}`, () => {
      const h = parsed(summary(label));
      expect([h.claims.status, h.status]).toEqual(['complete', 'failed']);
      expect(codes(h)).toContain('MAXSIM_STATUS_MARK_CONTRADICTS');
    });

  for (const [status, what] of [
    ['PASS ❌', 'the status mark ❌'],
    ['PASS\nFAIL', 'the status word FAIL'],
    ['PASS FAIL', 'the status word FAIL'],
    ['⛔ PASS', 'the status mark ⛔'],
    ['PASS\n\nFAIL', 'the status word FAIL'],
  ] as const)
    it(`attack: the contract's ### Status ${JSON.stringify(status)}`, () => {
      const h = parsed(contract(status), 'HANDOFF.md');
      expect([h.claims.status, h.status]).toEqual(['PASS', 'failed']);
      const why = h.reasons.find((r) => r.code === 'MAXSIM_STATUS_MARK_CONTRADICTS');
      expect(why?.message).toBe(`${what} contradicts PASS: failed`);
    });

  it('attack: a pass mark before a blocked word (`✅ Blocked`) contradicts it', () => {
    const h = parsed(summary('**Status:** ✅ Blocked — waiting on the API key'));
    expect([h.claims.status, h.status]).toEqual(['blocked', 'failed']);
    expect(codes(h)).toContain('MAXSIM_STATUS_MARK_CONTRADICTS');
  });
});

describe('attack: a joined part’s mark is read as the opening label’s is', () => {
  for (const label of [
    '**Status:** ❌ Complete',
    '**Status:** ✖️ Complete',
    '**Status:** Complete ❌',
  ])
    it(`attack: ${label} in a part under verification_result: passed`, () => {
      const h = parsed(joined(label), 'S01-SUMMARY.md');
      expect(h.status).toBe('failed');
      const why = h.reasons.find((r) => r.code === 'MAXSIM_STATUS_MARK_CONTRADICTS');
      expect(why?.message).toMatch(new RegExp(`^line ${JOINED_LABEL_LINE}: `));
    });

  it('attack: a mark written as a character reference, under front matter that says complete', () => {
    const h = parsed(summary('**Status:** &#x274C; Complete', 'complete'));
    expect(h.status).toBe('failed');
    expect(codes(h)).toContain('MAXSIM_STATUS_MARK_CONTRADICTS');
  });

  it('the opening label that is the summary’s own claim is judged once', () => {
    const h = parsed(summary('**Status:** ❌ Complete'));
    expect(codes(h).filter((c) => c === 'MAXSIM_STATUS_MARK_CONTRADICTS')).toHaveLength(1);
  });

  it('a mark no rule knows (`⚠️`, `🚧`) is said with its line, the word still read', () => {
    const h = parsed(joined('**Status:** 🚧 Complete'), 'S01-SUMMARY.md');
    expect(h.status).toBe('success');
    expect(unchecked(h)).toEqual([
      expect.objectContaining({
        line: JOINED_LABEL_LINE,
        why: expect.stringContaining('a mark this reader does not know (🚧)'),
      }),
    ]);
  });
});

describe('false alarm: honest status lines keep their reading', () => {
  for (const [label, status] of [
    ['**Status:** Complete ✅', 'success'],
    ['**Status:** ✓ Complete', 'success'],
    ['**Status:** ✅ COMPLETE', 'success'],
    ['**Status:** Complete — all 4 tasks, blocked items deferred', 'success'],
    ['**Status:** Failed — unit tests ✅, build ❌', 'failed'],
    ['**Status:** Partial — task 3 ❌ moved to plan 02', 'partial'],
    ['**Status:** Blocked ⛔', 'blocked'],
  ] as const)
    it(`false alarm: ${label}`, () => {
      const h = parsed(summary(label));
      expect(h.status).toBe(status);
      expect(codes(h)).not.toContain('MAXSIM_STATUS_MARK_CONTRADICTS');
      expect(unchecked(h)).toEqual([]);
    });

  for (const status of [
    'PASS',
    '✅ PASS',
    'PASS — all 4 plan tasks',
    'PASS\nAll four tasks landed.',
  ])
    it(`false alarm: the contract's ### Status ${JSON.stringify(status)}`, () => {
      const h = parsed(contract(status), 'HANDOFF.md');
      expect(h.status).toBe('success');
      expect(codes(h)).not.toContain('MAXSIM_STATUS_MARK_CONTRADICTS');
    });

  it('false alarm: a joined slice whose parts say Complete, or Complete ✅', () => {
    expect(parsed(joined('**Status:** Complete ✅'), 'S01-SUMMARY.md').status).toBe('success');
  });
});

describe('through record and verify', () => {
  it('`**Status:** Complete ❌`: the record is failed and verify exits 1', async () => {
    const repo = gitdir({ files: { 'README.md': 'x\n' } });
    writeFiles(repo, {
      'src/a.ts': 'export const a = 1;\n',
      '06-01-SUMMARY.md': summary('**Status:** Complete ❌'),
    });
    git(repo, 'add', 'src');
    git(repo, 'commit', '-q', '-m', '06-01');
    const recorded = await runCli(['record', '--from', '06-01-SUMMARY.md', '--json'], repo);
    expect((JSON.parse(recorded.stdout) as { effectiveStatus: string }).effectiveStatus).toBe(
      'failed',
    );
    expect((await runCli(['verify'], repo)).code).toBe(1);
  });
});

describe('attack: a warning or negative mark after a pass word is said as one before it is (red team, round seventeen, finding 10)', () => {
  for (const [label, mark] of [
    ['**Status:** Complete ⚠️', '⚠'],
    ['**Status:** Complete :warning: (2 tests skipped)', '⚠'],
    ['**Status:** Complete 🟥', '🟥'],
    ['**Status:** Complete :rotating_light:', '🚨'],
    ['**Status:** Complete 👎', '👎'],
    ['**Status:** Complete :thumbsdown:', '👎'],
    ['**Status:** Complete ❗', '❗'],
  ] as const)
    it(`attack: the opening label ${label}`, () => {
      const h = parsed(summary(label));
      expect(unchecked(h)).toContainEqual(
        expect.objectContaining({ why: expect.stringContaining(`(${mark}`) }),
      );
    });

  for (const label of [
    '**Status:** Complete 🎉',
    '**Status:** Complete ✨',
    '**Status:** Complete 🚀 shipped',
  ])
    it(`false alarm: ${label}`, () => {
      const h = parsed(summary(label));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});

describe('attack: a **Status:** label that is no success in a later section is said with its line (round seventeen)', () => {
  const later = (label: string): string =>
    `${summary('**Status:** Complete')}\n## Verification\n\nRan the suite.\n\n${label}\n`;
  const LATER_LINE = 24;
  for (const label of ['**Status:** Failed', '**Status:** Blocked — the API key never came'])
    it(`attack: ${label} under ## Verification`, () => {
      const h = parsed(later(label));
      expect(unchecked(h)).toContainEqual(
        expect.objectContaining({ line: LATER_LINE, text: expect.stringContaining(label) }),
      );
    });
  for (const label of ['**Status:** Complete', '**Status:** Operationally pending. Runbook due.'])
    it(`false alarm: ${label} in a later section stays quiet`, () => {
      const h = parsed(later(label));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});
