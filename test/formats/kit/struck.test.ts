/**
 * Struck-out text as GitHub shows it (kit/struck.ts). Red team, round eighteen, readers findings
 * 1 and 2: a strike over two lines of one paragraph, after an escaped backslash (`\\~~`), between
 * or between escaped backticks stood where the page withdraws it.
 */
import { describe, expect, it } from 'vitest';
import { shownLines, withoutStruck } from '../../../src/formats/kit/struck.js';

describe('withoutStruck reads a strike as the page shows it', () => {
  it('attack: a tilde run after an escaped backslash still strikes (`\\\\~~PASSED~~`)', () => {
    expect(withoutStruck('\\\\~~PASSED~~ FAILED')).toBe('\\\\ FAILED');
    expect(withoutStruck('\\\\\\~~PASSED~~ FAILED')).toBe('\\\\\\~~PASSED~~ FAILED');
  });

  it('false alarm: an escaped tilde run is a tilde (`\\~~PASSED~~`)', () => {
    expect(withoutStruck('\\~~PASSED~~ FAILED')).toBe('\\~~PASSED~~ FAILED');
  });

  it('attack: escaped backticks open no code span, so the strike between them stands', () => {
    expect(withoutStruck('\\`~~PASSED~~ FAILED\\`')).toBe('\\` FAILED\\`');
    // A backslash inside a code span is literal: the span still closes on its backtick.
    expect(withoutStruck('`a\\` ~~PASSED~~ FAILED')).toBe('`a\\`  FAILED');
    expect(withoutStruck('`~~PASSED~~` FAILED')).toBe('`~~PASSED~~` FAILED');
  });
});

describe('shownLines withdraws a strike over the lines of one paragraph', () => {
  it('attack: `~~PASSED` / `(first run)~~ FAILED`: the standing words take the first line', () => {
    expect(shownLines(['Self-check: ~~PASSED', '(first run)~~ FAILED — missing', '', 'x'])).toEqual(
      ['Self-check:  FAILED — missing', '', '', 'x'],
    );
  });

  it('false alarm: lines a strike does not cross are kept as written, and so is every count', () => {
    const lines = ['## Self-Check: ~~FAILED~~ PASSED', '~~a', '', 'b~~', '- ~~x~~ y', 'z'];
    expect(shownLines(lines)).toEqual(lines);
  });

  it('false alarm: no strike crosses a heading, a blank line, a fence or table rows', () => {
    for (const lines of [
      ['## Self-Check ~~x', 'y~~ FAILED'],
      ['~~x', '', 'y~~ FAILED'],
      ['```', '~~x', 'y~~ FAILED', '```'],
      ['| Self-Check | ~~x |', '|---|---|', '| src/b.ts | y~~ MISSING |'],
    ])
      expect(shownLines(lines)).toEqual(lines);
  });
});
