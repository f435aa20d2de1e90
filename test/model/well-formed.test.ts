import { describe, expect, it } from 'vitest';
import { illFormedStrings, MAX_NAMED } from '../../src/model/well-formed.js';

describe('strings with no UTF-8 form', () => {
  it('names each one by its path', () => {
    const problems = illFormedStrings({ summary: 'ok', decisions: [{ reason: 'a\udc9bb' }] });
    expect(problems.map((p) => p.path)).toEqual(['decisions[0].reason']);
    expect(problems[0]!.got).toBe('\\udc9b');
  });

  it('attack: a handoff of 10,000 such strings is answered with the first ones named and the rest counted', () => {
    const problems = illFormedStrings({ notes: Array.from({ length: 10_000 }, () => '\ud800') });
    expect(problems).toHaveLength(MAX_NAMED + 1);
    expect(problems[MAX_NAMED - 1]!.path).toBe(`notes[${MAX_NAMED - 1}]`);
    expect(problems[MAX_NAMED]!.message).toContain(`and ${10_000 - MAX_NAMED} more`);
  });

  it('a paired surrogate (an emoji) is text with a UTF-8 form', () => {
    expect(illFormedStrings({ summary: 'done \u{1F680}' })).toEqual([]);
  });
});
