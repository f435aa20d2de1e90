/**
 * Struck-out text as GitHub shows it (kit/struck.ts). Red team, round eighteen, readers findings
 * 1 and 2: a strike over two lines of one paragraph, after an escaped backslash (`\\~~`), between
 * escaped backticks, or written as `<del>`, `<s>`, `<strike>` stood where the page withdraws it.
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

  it('attack: <del>, <s> and <strike> are withdrawn as ~~ is, in any case, with attributes', () => {
    expect(withoutStruck('<del>PASSED</del> FAILED')).toBe(' FAILED');
    expect(withoutStruck('<s>PASSED</s> FAILED')).toBe(' FAILED');
    expect(withoutStruck('<STRIKE>PASSED</STRIKE> FAILED')).toBe(' FAILED');
    expect(withoutStruck('<del datetime="2026-01-01">Complete</del> Blocked')).toBe(' Blocked');
    expect(withoutStruck('<s/>PASSED</s> FAILED')).toBe(' FAILED');
    // Unclosed, the page strikes to the end of the paragraph.
    expect(withoutStruck('FAILED <del>PASSED')).toBe('FAILED ');
  });

  it('false alarm: a tag in a code span, escaped, or of another name is not a strike', () => {
    expect(withoutStruck('`<del>x</del>` FAILED')).toBe('`<del>x</del>` FAILED');
    expect(withoutStruck('\\<del>x</del> FAILED')).toBe('\\<del>x</del> FAILED');
    expect(withoutStruck('<details>x</details> <sub>y</sub>')).toBe(
      '<details>x</details> <sub>y</sub>',
    );
  });
});

describe('shownLines withdraws a strike over the lines of one paragraph', () => {
  it('attack: `~~PASSED` / `(first run)~~ FAILED`: the standing words take the first line', () => {
    expect(shownLines(['Self-check: ~~PASSED', '(first run)~~ FAILED — missing', '', 'x'])).toEqual(
      ['Self-check:  FAILED — missing', '', '', 'x'],
    );
    expect(shownLines(['**Status:** <del>Complete', '(draft)</del> Blocked'])).toEqual([
      '**Status:**  Blocked',
      '',
    ]);
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
