/**
 * Red team, round seventeen, readers findings 8 and 9: a struck-out verdict or status word (GFM
 * `~~PASSED~~ FAILED`, shown with PASSED struck through and FAILED standing) was read as said.
 * `## Self-Check: ~~PASSED~~ FAILED` passed, `**Status:** ~~Complete~~ Partial` was success, and
 * the honest twin that struck its old verdict (`~~FAILED~~ PASSED`, `~~Failed~~ Complete`) was a
 * false alarm. What the page shows decides: struck text is withdrawn.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup } from '../../helpers/git.js';
import { parsed, summary } from './self-check-summary.js';

afterAll(cleanup);

const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];
/** The summary with `status` as its opening **Status:** label, below the one-liner. */
const opening = (status: string): string =>
  summary('').replace('**A widget module.**', `**A widget module.**\n\n**Status:** ${status}`);

describe('attack: a struck-out pass word is not the verdict or the status', () => {
  for (const selfCheck of [
    '## Self-Check: ~~PASSED~~ FAILED\n\n- [x] src/a.ts FOUND',
    '## Self-Check: ~PASSED~ FAILED\n\n- [x] src/a.ts FOUND',
    '**Self-check: ~~PASSED~~ FAILED — missing: src/b.ts**',
  ])
    it(`attack: ${selfCheck.split('\n')[0]} fails the summary`, () => {
      expect(parsed(summary(selfCheck)).status).toBe('failed');
    });

  for (const status of ['~~Complete~~ Partial', '~~Complete~~ Blocked — waiting on the API key'])
    it(`attack: **Status:** ${status} is no success`, () => {
      const h = parsed(opening(status));
      expect(h.status === 'success' && unchecked(h).length === 0).toBe(false);
    });
});

describe('false alarm: an honest summary that struck its old verdict out stays success, unsaid', () => {
  it('false alarm: ## Self-Check: ~~FAILED~~ PASSED', () => {
    const h = parsed(summary('## Self-Check: ~~FAILED~~ PASSED\n\n- [x] src/a.ts FOUND'));
    expect(h.status).toBe('success');
    expect(unchecked(h)).toEqual([]);
  });

  it('false alarm: **Status:** ~~Failed~~ Complete', () => {
    const h = parsed(opening('~~Failed~~ Complete'));
    expect(h.status).toBe('success');
    expect(unchecked(h)).toEqual([]);
  });

  it('a tilde that strikes nothing is read as written: `## Self-Check: FAILED ~2 files~` fails', () => {
    expect(parsed(summary('## Self-Check: FAILED ~ 2 files\n\n- [x] src/a.ts FOUND')).status).toBe(
      'failed',
    );
  });
});

/**
 * Red team, round eighteen, readers findings 1 and 2: strikes the page shows that were read as
 * said. Over two lines of one paragraph, after an escaped backslash, between escaped backticks,
 * or written with `<del>`, `<s>`, `<strike>`: the struck pass word was the verdict, success.
 */
describe('attack: a struck pass word is withdrawn however GitHub strikes it', () => {
  for (const selfCheck of [
    '## Self-Check\n\n~~PASSED\n(first run)~~ FAILED: src/b.ts not written\n\n- [x] src/a.ts FOUND',
    'Verified with ls.\n\nSelf-check: ~~PASSED\n(first run)~~ FAILED — missing: src/b.ts',
    '**Self-check: ~~PASSED\n(first run)~~ FAILED — missing: src/b.ts**',
    '## Self-Check: \\\\~~PASSED~~ FAILED\n\n- [x] src/a.ts FOUND',
    '## Self-Check: \\`~~PASSED~~ FAILED\\`\n\n- [x] src/a.ts FOUND',
    '## Self-Check: <del>PASSED</del> FAILED\n\n- [x] src/a.ts FOUND',
    '## Self-Check: <s>PASSED</s> FAILED\n\n- [x] src/a.ts FOUND',
    '**Self-check: <strike>PASSED</strike> FAILED — missing: src/b.ts**',
    '## Self-Check\n\n<del>PASSED\n(first run)</del> FAILED: src/b.ts not written',
  ])
    it(`attack: ${selfCheck.replace(/\n/g, ' / ')} fails the summary`, () => {
      expect(parsed(summary(selfCheck)).status).toBe('failed');
    });

  for (const status of [
    '~~Complete\n(draft)~~ Blocked',
    '\\\\~~Complete~~ Blocked',
    '<del>Complete</del> Blocked',
    '<s>Complete</s> Partial',
  ])
    it(`attack: **Status:** ${status.replace(/\n/g, ' / ')} is the standing word`, () => {
      expect(parsed(opening(status)).status).not.toBe('success');
    });
});

describe('false alarm: an honest summary that struck its old verdict out with a tag stays success, unsaid', () => {
  for (const selfCheck of [
    '## Self-Check: <del>FAILED</del> PASSED\n\n- [x] src/a.ts FOUND',
    '## Self-Check: <DEL datetime="2026-01-01">FAILED</DEL> PASSED\n\n- [x] src/a.ts FOUND',
    '## Self-Check\n\n~~FAILED\n(first run)~~ PASSED\n\n- [x] src/a.ts FOUND',
  ])
    it(`false alarm: ${selfCheck.split('\n')[0]}`, () => {
      const h = parsed(summary(selfCheck));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });

  for (const status of ['<s>Failed</s> Complete', '~~Failed\n(first run)~~ Complete'])
    it(`false alarm: **Status:** ${status.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(opening(status));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});
