/**
 * A GSD-2 summary whose front matter YAML refuses, read as GSD-2's own line reader reads it
 * (gsd-build/gsd-2 `src/resources/extensions/shared/frontmatter.ts`): `` - `cmd` — what `` and
 * `- @bot trigger` items, `- stderr: "x" on failure`, `duration: ~3h (T01: ~1h)`, `requires:`
 * over `  []`. About fifty of xbmc/kodiai's 725 summaries were refused for such lines (issue 20,
 * corpus round eleven; the fixtures are written in their shapes, not copied). What GSD-2 would skip
 * or read ambiguously stays refused with its line, and no leniency hides a failure. Parsed in
 * memory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParseContext, ParseResult } from '../../../src/formats/index.js';
import { readGsd2FrontMatter } from '../../../src/formats/maxsim/gsd2-front-matter.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const fixture = (file: string): string =>
  readFileSync(join(PROJECT_ROOT, 'fixtures/handoffs/maxsim', file), 'utf8');
const parse = (text: string, fileName = 'S02-SUMMARY.md'): ParseResult =>
  maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName });
const problemsOf = (r: ParseResult): string[] => (r.ok ? [] : r.problems.map((p) => p.message));

/** A GSD-2 task summary with `lines` as its front matter's middle, and a passing gate row. */
function summary(lines: string, body = ''): string {
  return [
    '---',
    'id: T01',
    'parent: S01',
    'milestone: M007',
    lines,
    'completed_at: 2026-05-01',
    '---',
    '',
    '# T01: Work',
    '',
    body,
    '## Verification Evidence',
    '',
    '| # | Command | Exit Code | Verdict | Duration |',
    '|---|---------|-----------|---------|----------|',
    '| 1 | `bun test` | 0 | ✅ pass | 10ms |',
    '',
  ].join('\n');
}
/** A line YAML refuses and GSD-2 reads: an item that opens with a code span. */
const NOT_YAML = 'provides:\n  - `bun run check` — the drift report';

describe('a GSD-2 summary whose front matter is not YAML', () => {
  it('the fixture: read as GSD-2 reads it — its files, decisions, status and gate rows', () => {
    const r = parse(fixture('gsd2-front-matter-not-yaml.md'));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.handoff.claims.artifacts?.map((a) => `${a.action} ${a.path}`)).toEqual([
      'touched src/ledger/drift.ts',
      'touched src/ledger/drift.test.ts',
      'touched scripts/check-ledger.ts',
    ]);
    expect(r.handoff.claims.decisions?.map((d) => d.text)).toEqual([
      'Drift is computed from content ids, not timestamps',
      '`--json` output keeps stable check ids so downstream scripts can match them',
    ]);
    expect(r.handoff.claims.checks?.map((c) => `${c.command} ${c.result}`)).toEqual([
      'bun test src/ledger/drift.test.ts passed',
      'bun run tsc --noEmit passed',
    ]);
    expect(r.handoff.status).toBe('success');
  });

  it('the lie: a failing gate row under verification_result: passed still fails', () => {
    const r = parse(fixture('gsd2-front-matter-not-yaml-failed-row.md'));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.handoff.status).toBe('failed');
    expect(r.handoff.reasons.map((x) => x.code)).toContain('MAXSIM_FAILED_EVIDENCE');
  });

  it('the lie: a failing ## Verification item under passed still fails', () => {
    const r = parse(
      summary(
        `${NOT_YAML}\nkey_files:\n  - src/a.ts\nverification_result: passed`,
        '## Verification\n\n- `bun run lint` → 4 errors ✗\n',
      ),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.handoff.status).toBe('failed');
  });

  it('verification_result: failed is a failure, read the same way', () => {
    const r = parse(summary(`${NOT_YAML}\nverification_result: failed`));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.handoff.status).toBe('failed');
  });

  it('what GSD-2 itself cannot read stays refused, naming its line', () => {
    const cut = parse(fixture('gsd2-front-matter-cut-flow-list.md'));
    expect(problemsOf(cut)).toContain(
      "front matter line 7: GSD-2 splits key_decisions's list at every comma, inside quotes too, so it is not read as GSD-2 reads it either",
    );
    // A repeated status: GSD-2's TypeScript reader keeps the last, its native one the first.
    const twice = parse(
      summary(`${NOT_YAML}\nverification_result: failed\nverification_result: passed`),
    );
    expect(problemsOf(twice).join('\n')).toMatch(
      /front matter line 8: verification_result is written twice/,
    );
    // GSD-2 ends a list at a blank line and skips the items after it: not a shorter file list.
    const blank = parse(summary(`${NOT_YAML}\nkey_files:\n  - src/a.ts\n\n  - src/b.ts`));
    expect(problemsOf(blank).join('\n')).toMatch(
      /front matter line 10: a list item under no open list/,
    );
    // Items at column 0, a nested map, a continuation line: GSD-2 skips each.
    for (const [lines, line] of [
      ['key_files:\n- src/a.ts', 8],
      ['file_tracking:\n  key_files:\n    - src/a.ts', 8],
      ['key_files:\n  - src/a.ts is the parser,\n    split over two lines', 9],
    ] as const) {
      const r = parse(summary(`${NOT_YAML}\n${lines}\nverification_result: passed`));
      expect(r.ok, lines).toBe(false);
      expect(problemsOf(r).join('\n')).toMatch(new RegExp(`front matter line ${line}: `));
    }
  });

  it('YAML still reads what it can; a MaxsimCLI summary gets no GSD-2 reading', () => {
    const r = parse(
      '---\nphase: 03\nplan: 01\nkey-files:\n  - `src/a.ts` — new\ncompleted: 2026-05-01\n---\n\n# Summary\n',
      '03-01-SUMMARY.md',
    );
    expect(problemsOf(r)).toEqual([
      'front matter line 5, column 5: Plain value cannot start with reserved character `',
    ]);
  });
});

describe("GSD-2's front matter rules (readGsd2FrontMatter)", () => {
  it('reads what GSD-2 reads', () => {
    const r = readGsd2FrontMatter(
      [
        'id: T03',
        'verification_result: "passed"',
        'duration: ~5h (S01: ~4h, S02: ~1h)',
        'affects: [S02, S03]',
        'key_files: ["src/a.ts", \'src/b.ts\']',
        'odd: [a, b]: c',
        '# a comment',
        'requires:',
        '  - slice: S01',
        '    provides: the parser: its tokens',
        '  - `cmd` — what',
        'empty:',
        '  []',
      ].join('\n'),
    );
    expect(r).toEqual({
      ok: true,
      value: {
        id: 'T03',
        verification_result: 'passed',
        duration: '~5h (S01: ~4h, S02: ~1h)',
        affects: ['S02', 'S03'],
        key_files: ['src/a.ts', 'src/b.ts'],
        odd: '[a, b]: c',
        requires: [{ slice: 'S01', provides: 'the parser: its tokens' }, '`cmd` — what'],
        empty: [],
      },
    });
  });

  it('a prototype key is refused, as in YAML front matter', () => {
    const r = readGsd2FrontMatter('id: T01\n__proto__:\n  - polluted: yes');
    expect(r.ok).toBe(false);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    if (!r.ok) expect(r.problems[0]?.path).toBe('frontMatter.__proto__');
  });

  it('an item after `  []` is refused: GSD-2 closed that list', () => {
    const r = readGsd2FrontMatter('requires:\n  []\n  - S01');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.problems[0]?.message).toMatch(
        /^front matter line 4: a list item under no open list/,
      );
  });
});
