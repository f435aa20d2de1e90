/**
 * The progress line, in memory: a fake terminal, a fake clock and a fake one-second timer, so
 * that "what is running, for how long" is checked without waiting for real time.
 */
import { describe, expect, it } from 'vitest';
import { formatElapsed, Progress } from '../../src/cli/progress.js';

function terminal(columns = 80) {
  const writes: string[] = [];
  let now = 0;
  let redraw: (() => void) | undefined;
  let stopped = 0;
  const progress = (enabled: boolean) =>
    new Progress({
      stream: { isTTY: true, columns, write: (text: string) => writes.push(text) },
      enabled,
      now: () => now,
      every: (_ms, fn) => {
        redraw = fn;
        return { stop: () => stopped++ };
      },
    });
  return {
    writes,
    progress,
    tick: (ms: number) => {
      now += ms;
      redraw?.();
    },
    stopped: () => stopped,
  };
}

const CLEAR = '\r\u001b[2K';

describe('progress on a terminal', () => {
  it('shows what is running and how long the command has been at it, redrawn on one line, erased at the end', () => {
    const t = terminal();
    const p = t.progress(true);
    p.report('running witness: npm test');
    t.tick(1000);
    t.tick(64_000);
    p.report('snapshotting the work tree');
    t.tick(2500);
    p.done();
    expect(t.writes).toEqual([
      `${CLEAR}… running witness: npm test (0 s)`,
      `${CLEAR}… running witness: npm test (1 s)`,
      `${CLEAR}… running witness: npm test (1 min 05 s)`,
      `${CLEAR}… snapshotting the work tree (1 min 05 s)`,
      `${CLEAR}… snapshotting the work tree (1 min 07 s)`,
      CLEAR,
    ]);
    expect(t.stopped()).toBe(1);
  });

  it('writes nothing at all when disabled (piped, or --json)', () => {
    const t = terminal();
    const p = t.progress(false);
    p.report('running witness: npm test');
    t.tick(5000);
    p.done();
    expect(t.writes).toEqual([]);
  });

  it('escapes terminal controls an agent put into a witness command', () => {
    const t = terminal(200);
    t.progress(true).report('running witness: echo \u001b[2Jgotcha\u202e');
    expect(t.writes).toEqual([`${CLEAR}… running witness: echo \\x1b[2Jgotcha\\u202e (0 s)`]);
  });

  it('cuts a line that would wrap to the terminal width, keeping the elapsed time', () => {
    const t = terminal(30);
    t.progress(true).report(`running witness: ${'x'.repeat(100)}`);
    const shown = t.writes[0]!.slice(CLEAR.length);
    expect(Array.from(shown).length).toBeLessThanOrEqual(29);
    expect(shown).toMatch(/^… running witness: x+… \(0 s\)$/);
  });

  it('formats elapsed time coarsely', () => {
    expect(formatElapsed(999)).toBe('0 s');
    expect(formatElapsed(59_999)).toBe('59 s');
    expect(formatElapsed(60_000)).toBe('1 min 00 s');
    expect(formatElapsed(3_725_000)).toBe('62 min 05 s');
  });
});
