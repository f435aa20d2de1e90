/**
 * MaxsimCLI documents as real projects write them: artifacts grouped under `### Created`
 * sub-headings, prose where a path belongs, an `## Executor Result` heading over the contract
 * sections, a handoff that follows the contract exactly, paths from a linked worktree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat, type ParseContext, type ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { PROJECT_ROOT } from '../../helpers/git.js';
import { recordOf } from '../helpers.js';

const DIR = join(PROJECT_ROOT, 'fixtures', 'handoffs', 'maxsim');
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const read = (file: string): Uint8Array => readFileSync(join(DIR, file));
function parsed(file: string, context: ParseContext = ctx): ParsedHandoff {
  const r = maxsim.parse(read(file), { ...context, fileName: file });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}

describe('MaxsimCLI real documents', () => {
  it('files under ### Created / ### Modified / ### Deleted inside ## Artifacts are claims, each with its action', () => {
    const h = parsed('summary-artifact-subsections.md');
    expect(h.claims.artifacts).toEqual([
      { path: 'packages/e2e/src/dashboard.test.ts', action: 'created' },
      { path: 'packages/e2e/src/helpers/poll.ts', action: 'created' },
      { path: 'packages/e2e/src/fixtures/mock-project.ts', action: 'modified' },
      { path: 'packages/e2e/package.json', action: 'modified' },
      { path: 'packages/e2e/src/legacy-smoke.test.ts', action: 'deleted' },
    ]);
    expect(h.status).toBe('success');
  });

  it('a line of prose under Artifacts is not a claim about a file named "14" or "3": it is unverifiable prose', () => {
    const h = parsed('prose-artifact-lines.md');
    expect(h.claims.artifacts?.map((a) => a.path)).toEqual([
      'templates/skills/agents/README.md',
      'packages/cli/src/install/copy.ts',
      'templates/agents/AGENTS.md',
    ]);
    const record = recordOf(h, 'maxsim');
    expect(maxsim.verify?.uncheckable?.(record)).toEqual([
      {
        id: 'claims.extra.proseArtifacts[0]',
        subject: 'Created: 3 new helper files',
        reason: expect.stringMatching(/^a description, not a path/),
      },
      {
        id: 'claims.extra.proseArtifacts[1]',
        subject: 'Deleted: 14 maxsim-*.md agent files',
        reason: expect.stringMatching(/^a description, not a path/),
      },
    ]);
  });

  it('## Executor Result with PASS/FAIL is detected as MaxsimCLI, and detection says why', () => {
    for (const file of ['executor-result-heading.md', 'executor-result-fail.md']) {
      const d = detectFormat(read(file), file);
      expect(d.module.name).toBe('maxsim');
      expect(d.signals.join('; ')).toMatch(/status (PASS|FAIL) is MaxsimCLI's vocabulary/);
      const team = d.ranking.find((r) => r.format === 'team');
      expect(team?.score ?? 0).toBeLessThan(d.score);
      expect(team?.signals.join('; ')).toMatch(/MaxsimCLI/);
    }
    expect(parsed('executor-result-heading.md').status).toBe('success');
    expect(parsed('executor-result-fail.md').status).toBe('failed');
  });

  it('a handoff that follows the contract exactly records as success; evidence blocks are a note unless the policy makes them a gate', () => {
    const h = parsed('contract-template-filled.md');
    expect(h.status).toBe('success');
    expect(h.reasons.map((r) => r.code)).toEqual(['MAXSIM_NO_EVIDENCE_BLOCKS']);
    const gated = parsed('contract-template-filled.md', {
      ...ctx,
      options: { maxsim: { requireEvidenceBlocks: true } },
    });
    expect(gated.status).toBe('partial');
    expect(gated.reasons.map((r) => r.code)).toEqual(['MAXSIM_EVIDENCE_BLOCKS_REQUIRED']);
  });

  it("the seed's own examples record as the seed says: PASS with evidence is success", () => {
    expect(parsed('seed-section-examples.md').status).toBe('success');
  });

  it('absolute paths under another worktree of the repository map into it', () => {
    const text = [
      '### Key Decisions',
      '- none needed',
      '### Artifacts',
      '- Created: /home/dev/project-wt/feature/src/new.ts',
      '- Modified: /home/dev/elsewhere/src/x.ts',
      '### Status',
      'PARTIAL',
      'Evidence:',
      '- task 1 done',
      '### Deferred Items',
      'None',
    ].join('\n');
    const r = maxsim.parse(new TextEncoder().encode(text), {
      ...ctx,
      worktrees: ['/home/dev/project-wt/feature'],
    });
    expect(r.ok && r.handoff.claims.artifacts).toEqual([
      { path: 'src/new.ts', action: 'created', as: '/home/dev/project-wt/feature/src/new.ts' },
      // outside every worktree: kept as written, and verify says it cannot check it
      { path: '/home/dev/elsewhere/src/x.ts', action: 'modified' },
    ]);
  });
});
