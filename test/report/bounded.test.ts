/**
 * The audit page's bounded views, in memory: line diffs and output tails keep to their caps
 * whatever the agent's bytes are, and say what they left out.
 */
import { describe, expect, it } from 'vitest';
import { lineDiff, PageBudget, tailOf, textOf } from '../../src/report/bounded.js';

describe('lineDiff', () => {
  it('shows changed lines with three lines of context and hunk headers', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 5\n', 'line five\n').replace('line 18\n', '');
    const diff = lineDiff(before, after);
    expect(diff).toMatchObject({ added: 1, removed: 2, omitted: 0 });
    expect(diff.lines.map((l) => `${l.op}${l.text}`)).toEqual([
      '@@@ -2 +2 @@',
      ' line 2',
      ' line 3',
      ' line 4',
      '-line 5',
      '+line five',
      ' line 6',
      ' line 7',
      ' line 8',
      '@@@ -15 +15 @@',
      ' line 15',
      ' line 16',
      ' line 17',
      '-line 18',
      ' line 19',
      ' line 20',
    ]);
  });

  it('caps lines and characters per line, and counts what it left out', () => {
    const after = Array.from({ length: 500 }, (_, i) => `${i}`.repeat(i === 3 ? 10_000 : 1)).join(
      '\n',
    );
    const diff = lineDiff(undefined, after, { lines: 10, lineChars: 50 });
    expect(diff.added).toBe(500);
    expect(diff.lines).toHaveLength(10);
    expect(diff.omitted).toBe(501 - 10);
    expect(diff.lines[4]!.text).toBe(`${'3'.repeat(50)} … (9950 more characters)`);
  });

  it('a huge change with nothing in common is a block, not a quadratic alignment', () => {
    const a = Array.from({ length: 5000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 5000 }, (_, i) => `b${i}`).join('\n');
    const diff = lineDiff(a, b);
    expect(diff).toMatchObject({ added: 5000, removed: 5000 });
    expect(diff.lines).toHaveLength(60);
  });
});

describe('tailOf and textOf', () => {
  it('keeps the last lines, drops the partial first line of a cut read, caps each line', () => {
    const bytes = new TextEncoder().encode(
      `tial line\n${Array.from({ length: 30 }, (_, i) => `out ${i}`).join('\n')}\n`,
    );
    const tail = tailOf(bytes, true, { lines: 5, lineChars: 100 });
    expect(tail).toEqual({
      lines: ['out 25', 'out 26', 'out 27', 'out 28', 'out 29'],
      omitted: 25,
      more: true,
    });
  });

  it('a NUL byte means binary: not shown as text', () => {
    expect(textOf(new Uint8Array([104, 0, 105]))).toBeUndefined();
    expect(textOf(new TextEncoder().encode('hi'))).toBe('hi');
  });

  it('the page budget refuses what does not fit and keeps the rest', () => {
    const budget = new PageBudget(100);
    expect(budget.take(['x'.repeat(200)])).toBe(false);
    expect(budget.take(['x'.repeat(50)])).toBe(true);
    expect(budget.spent).toBe(false);
    expect(budget.take(['x'.repeat(50)])).toBe(false);
  });
});
