/**
 * Red team, round eighteen, readers finding 6 (a false alarm round seventeen's words-before-the-word
 * reading made): honest prose that tells a self-check's history ("My self-check failed on the first
 * try …", "The first self-check failed: …", `## Earlier Self-Check Failure`, `### How a Self-Check
 * Fails`) in a summary whose own `## Self-Check: PASSED` passes derived FAILED, and plain verify
 * exited 1. Round seventeen's attack shapes (self-check-leads.test.ts) keep failing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, gitdir, runCli, tempDir, writeFiles } from '../../helpers/git.js';
import { parsed, summary } from './self-check-summary.js';

afterAll(cleanup);

const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];

const PASS = '## Self-Check: PASSED\n\n- [x] src/a.ts FOUND';

describe('false alarm: prose that tells how an earlier self-check went stays quiet beside a final pass', () => {
  for (const selfCheck of [
    `## Issues Encountered\n\nMy self-check failed on the first try because of a typo in a path.\n\n${PASS}`,
    '## Issues Encountered\n\nThe first self-check failed: the commit lookup used `rg`, which is not installed here; switched to `grep`.\n\n' +
      PASS,
    `## Earlier Self-Check Failure\n\nThe plan named \`src/b.ts\` by mistake; the file is not needed.\n\n${PASS}`,
    `${PASS}\n\n### How a Self-Check Fails\n\nA MISSING line means the file was not written.`,
    `**My self-check** failed on the first try (a typo).\n\n${PASS}`,
    `## Initial Self-Check: FAILED\n\n- MISSING: src/a.ts (typo in the path)\n\n${PASS}`,
    `The first self-check: FAILED (a typo in a path).\n\n${PASS}`,
  ])
    it(`false alarm: ${selfCheck.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(summary(selfCheck));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });

  it('false alarm: the recorded summary verifies, exit 0', async () => {
    const repo = gitdir();
    writeFiles(repo, { 'src/a.ts': 'export const a = 1;\n' });
    const doc = join(tempDir(), '06-01-SUMMARY.md');
    writeFileSync(
      doc,
      summary(
        `## Issues Encountered\n\nMy self-check failed on the first try because of a typo in a path.\n\n${PASS}`,
      ),
    );
    const rec = await runCli(['record', '--from', doc, '--json'], repo);
    const recorded = JSON.parse(rec.stdout) as { id: string; effectiveStatus: string };
    expect(recorded.effectiveStatus).toBe('success');
    const strict = await runCli(['verify', '--strict', '--full', recorded.id], repo);
    expect(strict.code, strict.stdout).toBe(0);
  });
});

describe('false alarm: prose that names the self-check and what it finds tells no failure', () => {
  for (const line of [
    'Run the self-check to find missing files.',
    'The self-check catches failed commits before the summary is written.',
  ])
    it(`false alarm: ${line}`, () => {
      const h = parsed(summary(`Done.\n\n${line}`));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});

describe('attack: a failing self-check with words before the word still fails', () => {
  for (const selfCheck of [
    '## Final Self-Check FAILED\n\n- [x] src/a.ts FOUND',
    'Done.\n\nFinal self-check: FAILED — missing src/b.ts',
    'Done.\n\nExecutor Self-Check FAILED: src/b.ts missing',
    '## Final Self-Check Results: FAILED\n\n- [x] src/a.ts FOUND',
    // A verdict word that is all the words say, in any case, is the verdict.
    '## Final self-check failed\n\n- [x] src/a.ts FOUND',
    'Done.\n\nFinal self-check failed — missing src/b.ts',
    'Done.\n\nExecutor self-check failed (src/b.ts missing)',
    // History only when a later self-check passes; alone, it is the verdict.
    '## Initial Self-Check: FAILED\n\n- MISSING: src/b.ts',
    // A later self-check that is history too passes nothing.
    `## Initial Self-Check: FAILED\n\n- MISSING: src/b.ts\n\n## Earlier Self-Check: PASSED`,
    // The plain self-check after it fails: a failing verdict that is no history is a failure.
    `${PASS}\n\n## Self-Check: FAILED\n\n- MISSING: src/b.ts`,
  ])
    it(`attack: ${selfCheck.replace(/\n/g, ' / ')}`, () => {
      expect(parsed(summary(selfCheck)).status).toBe('failed');
    });

  for (const selfCheck of [
    'Done.\n\nThe self-check failed on src/b.ts.',
    'Done.\n\nMy self-check failed: src/b.ts missing',
    '## Final Self-Check Missing Files\n\n- [x] src/a.ts FOUND',
    `${PASS}\n\nThe second self-check failed on src/b.ts.`,
  ])
    it(`attack: prose that says a self-check failed, with no pass after it, is said: ${selfCheck.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(summary(selfCheck));
      expect(h.status).toBe('success');
      expect(
        unchecked(h)
          .map((u) => u.why)
          .join('\n'),
      ).toMatch(/self-check/);
    });

  it('attack: a worded heading whose rest is in verdict capitals is not prose (## Final Self-Check PARTIAL)', () => {
    const h = parsed(summary('## Final Self-Check PARTIAL\n\n- [x] src/a.ts FOUND'));
    expect(
      unchecked(h)
        .map((u) => u.why)
        .join('\n'),
    ).toMatch(/does not know/);
  });
});
