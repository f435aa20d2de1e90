/**
 * Issue 20: files that share Spec-Workflow-Toolkit's names but come from other harnesses
 * (test/formats/corpus/docs/lookalike, copied unchanged: boshu2/12-factor-agentops
 * claude-progress.json @794be4c, panayiotism/claude-harness-demo feature-list.json @1e82856).
 * A guess is not recorded: without --format they are refused with what they were taken for and
 * why; with --format team the refusal says what the file seems to be, then the fields.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat, type ParseContext } from '../../../src/formats/index.js';
import { team } from '../../../src/formats/team/index.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const DIR = join(PROJECT_ROOT, 'test', 'formats', 'corpus', 'docs', 'lookalike');
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const read = (file: string): Uint8Array => readFileSync(join(DIR, file));

describe('look-alike toolkit files from other harnesses', () => {
  it("another harness's feature-list.json is not recorded on a 0.3 guess: the refusal names the format it was taken for and why", () => {
    const bytes = read('harness-demo-feature-list.json');
    expect(() => detectFormat(bytes, 'feature-list.json')).toThrow(
      /taken for .*\(team\) only at confidence 0\.30, on the shape of a toolkit features file, without workspaceId: too weak to record without --format/,
    );
  });

  it("with --format team, another harness's feature-list.json is refused saying what it seems to be, before the fields", () => {
    const r = team.parse(read('harness-demo-feature-list.json'), {
      ...ctx,
      fileName: 'feature-list.json',
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems[0]).toMatchObject({
      path: '',
      message: expect.stringMatching(
        /read as Spec-Workflow-Toolkit's feature-list\.json .* no workspaceId .* seems to be another tool's feature-list\.json/,
      ),
    });
    expect(!r.ok && r.problems.map((p) => p.path)).toContain('features[0].status');
  });

  it("another harness's claude-progress.json (sessions, no workspaceId) is refused as such with --format team", () => {
    const bytes = read('agentops-claude-progress.json');
    expect(() => detectFormat(bytes, 'claude-progress.json')).toThrow();
    const r = team.parse(bytes, { ...ctx, fileName: 'claude-progress.json' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems[0]?.message).toMatch(
      /seems to be another tool's claude-progress\.json/,
    );
  });

  it('a claude-progress.json with a features array (the demo harness list under that name) is taken for nothing it is not', () => {
    const bytes = read('harness-demo-feature-list.json');
    let message = '';
    try {
      detectFormat(bytes, 'claude-progress.json');
    } catch (error) {
      message = `${(error as Error).message} ${(error as { hint?: string }).hint ?? ''}`;
    }
    expect(message).toMatch(/only at confidence 0\.25/);
    expect(message).toMatch(/another harness's progress file/);
  });

  it('with --format team, a claude-progress.json holding a features array is named as the file it is, not as a feature-list.json', () => {
    const r = team.parse(read('harness-demo-feature-list.json'), {
      ...ctx,
      fileName: 'claude-progress.json',
    });
    expect(r.ok).toBe(false);
    const message = (!r.ok && r.problems[0]?.message) || '';
    expect(message).toMatch(/claude-progress\.json/);
    expect(message).toMatch(/features array/);
    expect(message).not.toMatch(/another tool's feature-list\.json/);
    expect(message).toMatch(/seems to be another tool's claude-progress\.json/);
  });
});
