/**
 * GSD-2 (gsd-build/gsd-2 a9fa9cec4 to 82779b24d, 2026-03-25 to 03-30) wrote a task's verification
 * text into `verification_result: "…"` where its gate's word belongs. Such a summary was refused
 * as an unknown status word: 30 of xbmc/kodiai's 725 summaries, and other projects' (issue 20,
 * corpus round ten; the corpus keeps one, file id 53676050004). The
 * sentence is read as a verification item is: a plain pass claims PASS (what GSD-2 itself wrote
 * there after its fix), a plain failure FAIL, anything else no status, kept with its line. A
 * single unknown word is still refused. Parsed in memory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParseContext } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const CORPUS = join(PROJECT_ROOT, 'test/formats/corpus/docs/gsd2');
const read = (text: string) =>
  maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: 'T01-SUMMARY.md' });
const doc = (name: string) => readFileSync(join(CORPUS, name), 'utf8');
function handoff(text: string) {
  const r = read(text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const SENTENCE = 'pytest tests/ -q: 198 passed';

describe('a verification sentence in GSD-2 verification_result', () => {
  it('a plain pass (a real GSD-2 task summary) claims PASS and records success', () => {
    const text = doc('gsd2-M004-S04-T02-verification-result-sentence.md');
    const h = handoff(text);
    expect([h.claims.status, h.status]).toEqual(['PASS', 'success']);
    expect(h.claims.extra?.['summaryStatus']).toEqual({
      written: SENTENCE,
      where: 'front matter verification_result',
    });
    // Lies still caught: a failing Evidence row under it, a sentence that says a failure.
    const row = handoff(text.replace('| 0 | ✅ pass — 198 passed |', '| 1 | ❌ fail — 3 failed |'));
    expect(row.status).toBe('failed');
    expect(row.reasons.map((r) => r.code)).toContain('MAXSIM_FAILED_EVIDENCE');
    // A short count beside a pass says both: no status, below the honest success.
    const short = handoff(text.replace(`"${SENTENCE}"`, '"pytest tests/ -q: 195/198 passed"'));
    expect([short.claims.status, short.status]).toEqual(['', 'partial']);
    const failed = handoff(text.replace(`"${SENTENCE}"`, '"pytest tests/ -q: exit 1 (3 errors)"'));
    expect([failed.claims.status, failed.status]).toEqual(['FAIL', 'failed']);
  });

  it('a qualified one (pre-existing failures, as xbmc/kodiai M031 T04 writes) claims no status and is kept with its line', () => {
    const h = handoff(
      doc('gsd2-M004-S04-T02-verification-result-sentence.md').replace(
        `"${SENTENCE}"`,
        '"pytest tests/ -q: 198 passed. Full suite: 2225 pass, 54 fail (all pre-existing DB-integration tests)."',
      ),
    );
    expect([h.claims.status, h.status]).toEqual(['', 'partial']);
    const unchecked = h.claims.extra?.['unchecked'] as { line: number; why: string }[];
    expect(unchecked.map((u) => u.line)).toEqual([14]);
    expect(unchecked[0]?.why).toMatch(/qualified .*no status claimed/);
  });

  it('one word that is no status word is still refused with its line', () => {
    const text = doc('gsd2-M004-S04-T02-verification-result-sentence.md').replace(
      `verification_result: "${SENTENCE}"`,
      'verification_result: shipped',
    );
    const r = read(text);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.problems[0]?.message).toBe(
      'front matter line 14: verification_result is not a status word MaxsimCLI or its summary templates use',
    );
  });
});
