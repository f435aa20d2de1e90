/**
 * Red team, round twelve, finding 1: a generic result document (`# <X> Result`, `## Status`
 * success, `## Summary`) was taken for a team-orchestration subagent result (0.53, and 0.98 for
 * any title ending in "Result"), recorded, lowered for three missing contract sections, and so
 * failed an honest CI. A team result now needs the contract's own evidence — two of Findings,
 * Key References, Confidence, or a toolkit role — before detection is confident; the real
 * documents (fixtures/generic-results, sources in its README) are refused, nothing written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat } from '../../../src/formats/index.js';
import { runBinInProcess } from '../../helpers/cli-in-process.js';
import { cleanup, gitdir, PROJECT_ROOT, refs, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const DIR = join(PROJECT_ROOT, 'fixtures', 'generic-results');
const read = (file: string): Uint8Array => readFileSync(join(DIR, file));
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** What detection says when it refuses, message and hint; '' when it reads the input. */
function refusal(bytes: Uint8Array, fileName?: string): string {
  try {
    const found = detectFormat(bytes, fileName);
    return `read as ${found.module.name} at ${found.score.toFixed(2)} on ${found.signals.join('; ')}`;
  } catch (error) {
    return `${(error as Error).message} ${(error as { hint?: string }).hint ?? ''}`;
  }
}

const MINIMAL = '# Add feature\n\n## Status\n\nsuccess\n\n## Summary\n\nAdded the constant.\n';

describe('false alarm: a generic result document is not taken for a team-orchestration result', () => {
  it('the real AI-BOARD result (# … Result, ## Status SUCCESS, ## Summary) is refused as too weak, not read as team at 0.98', () => {
    const said = refusal(read('aiboard-result.md'), '.ai-board-result.md');
    expect(said).toMatch(/only at confidence 0\.[0-4]\d.*too weak to record without --format/);
    expect(said).toMatch(/none of the contract's own sections/);
  });

  it('## Status success + ## Summary (0.53 before) is refused: a lower-case success is not the contract vocabulary', () => {
    const said = refusal(enc(MINIMAL), 'HANDOFF.md');
    expect(said).toMatch(/too weak to record without --format|could not tell/);
    expect(said).not.toMatch(/the result contract's vocabulary/);
  });

  it('Status, Summary and one contract section (the Sartor subagent output shape) stays below 0.5', () => {
    const doc =
      '# Research Result\n\n## Status\nSUCCESS\n\n## Summary\nRead the docs.\n\n### Findings\n- the API is paged\n\n## Handoff\nNext: write the client.\n';
    expect(refusal(enc(doc))).toMatch(/too weak to record without --format/);
  });

  it('a Cursor orchestrate handoff (## Status success, no Summary) is still refused', () => {
    expect(refusal(read('orchestrate-handoff.md'), 'handoff.md')).toMatch(
      /too weak to record without --format|could not tell/,
    );
  });

  it('a result under a toolkit role with only Status and Summary is still a team result', () => {
    const doc = '## frontend-specialist Result\n\n### Status\nSUCCESS\n\n### Summary\nDone.\n';
    expect(refusal(enc(doc))).toMatch(/^read as team at 0\.9/);
  });

  it('an unknown role with two of the contract sections is still a team result', () => {
    const doc =
      '## Data Pipeline Agent Result\n\n### Status\nSUCCESS\n\n### Summary\nDone.\n\n### Key References\n- `src/a.ts:1`\n\n### Confidence\n90 - read every file\n';
    expect(refusal(enc(doc))).toMatch(/^read as team at 0\.9/);
  });

  it('record refuses the AI-BOARD result with exit 2 and writes nothing, so verify has nothing to fail', async () => {
    const repo = gitdir();
    writeFiles(repo, {
      'spec.md': 'spec\n',
      '.ai-board-result.md': readFileSync(join(DIR, 'aiboard-result.md'), 'utf8'),
    });
    const before = refs(repo);
    const r = await runBinInProcess(['record', '--from', '.ai-board-result.md'], repo);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/too weak to record without --format/);
    expect(refs(repo)).toBe(before);
  }, 120_000);
});
