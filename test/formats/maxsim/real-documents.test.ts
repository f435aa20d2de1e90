/**
 * MaxsimCLI documents as real projects write them: artifacts grouped under `### Created`
 * sub-headings, prose where a path belongs, an `## Executor Result` heading over the contract
 * sections, a handoff that follows the contract exactly, paths from a linked worktree, and the
 * phase SUMMARY of MaxsimCLI's own template (key-files front matter; test/formats/corpus).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import { detectFormat, type ParseContext, type ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';
import { recordOf } from '../helpers.js';

afterAll(cleanup);

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

describe('MaxsimCLI phase summaries from its own template (maystudios/maxsimcli .planning/phases)', () => {
  it('key-files created/modified are claims with their action; key-decisions are decisions', () => {
    // Refused before ("no handoff-contract section found"): 13 of 22 real summaries.
    const h = parsed('real-26-01-SUMMARY-key-files.md');
    expect(h.claims.artifacts).toEqual([
      { path: 'templates/skills/tdd/SKILL.md', action: 'created' },
      { path: 'templates/skills/systematic-debugging/SKILL.md', action: 'created' },
      { path: 'templates/skills/verification-before-completion/SKILL.md', action: 'created' },
    ]);
    expect(h.claims.decisions?.[0]?.text).toMatch(/^Skills follow Superpowers SKILL.md pattern/);
    // A summary states no contract status: partial, the two sections it has no stand-in for named.
    expect(h.status).toBe('partial');
    expect(
      h.reasons.filter((r) => r.code === 'MAXSIM_MISSING_SECTION').map((r) => r.subject),
    ).toEqual(['Status', 'Deferred Items']);
    const d = detectFormat(
      read('real-26-01-SUMMARY-key-files.md'),
      'real-26-01-SUMMARY-key-files.md',
    );
    expect(d.module.name).toBe('maxsim');
    expect(d.signals.join('; ')).toMatch(/phase SUMMARY/);
  });

  it('the key_files / decisions spelling some executors write is read the same way', () => {
    const h = parsed('real-22-02-SUMMARY-key_files.md');
    expect(h.claims.artifacts).toEqual([
      { path: 'packages/e2e/src/dashboard-pty-absent.test.ts', action: 'created' },
      { path: 'packages/e2e/package.json', action: 'modified' },
      { path: 'packages/e2e/vitest.config.ts', action: 'modified' },
    ]);
    expect(h.claims.decisions).toHaveLength(3);
  });

  it('a Files Created/Modified item the front matter did not name is a file touched', () => {
    const text = [
      '---',
      'phase: 13-live-project-dashboard',
      'plan: 07',
      'key-files:',
      '  created:',
      '    - packages/dashboard/app/api/health/route.ts',
      '  modified: []',
      '---',
      '',
      '## Files Created/Modified',
      '- `packages/dashboard/app/api/health/route.ts` - GET endpoint returning status',
      '- `packages/cli/src/cli.ts` - Added dashboard command case',
      '',
    ].join('\n');
    const r = maxsim.parse(new TextEncoder().encode(text), ctx);
    expect(r.ok && r.handoff.claims.artifacts).toEqual([
      { path: 'packages/dashboard/app/api/health/route.ts', action: 'created' },
      { path: 'packages/cli/src/cli.ts', action: 'touched' },
    ]);
  });

  it('an older summary that opens with **Phase:** / **Plan:** records its own **Status:** Complete (success, nothing to check)', () => {
    const h = parsed('real-17-01-SUMMARY-labels.md');
    // Held to its own claim, not to the handoff contract's four sections (which it lacks).
    expect(h.claims.status).toBe('complete');
    expect(h.status).toBe('success');
    expect(h.reasons).toEqual([]);
    expect(h.claims.artifacts).toBeUndefined();
    // A text with the labels further down, after its first section, is not a summary.
    const r = maxsim.parse(
      new TextEncoder().encode('## Notes\n\n**Phase:** 3\n**Plan:** 1\n'),
      ctx,
    );
    expect(r.ok).toBe(false);
  });

  it('## Key Files sections: ### Created / ### Modified are exact, a Key Files Created/Modified list is touched', () => {
    expect(parsed('real-17-01-SUMMARY-created-modified-subsections.md').claims.artifacts).toEqual([
      { path: 'packages/e2e/src/dashboard.test.ts', action: 'created' },
      { path: 'packages/e2e/src/fixtures/mock-project.ts', action: 'modified' },
    ]);
    expect(
      parsed('real-16-01-SUMMARY-key-files-section.md').claims.artifacts?.map((a) => a.action),
    ).toEqual(['touched', 'touched', 'touched', 'touched']);
    // maxsimcli 01-02 lists the test file it created under `## Key Files Modified`: a heading
    // that loose is not a claim that the file existed before.
    const text = [
      '**Phase:** 01-Context-Rot-Prevention',
      '**Plan:** 02',
      '',
      '## Key Files Modified',
      '- `packages/cli/tests/stale-detection.test.ts` -- 10 test cases',
      '',
    ].join('\n');
    const r = maxsim.parse(new TextEncoder().encode(text), ctx);
    expect(r.ok && r.handoff.claims.artifacts).toEqual([
      { path: 'packages/cli/tests/stale-detection.test.ts', action: 'touched' },
    ]);
  });

  it('words in backticks where a file belongs are prose, not a file named "26-01 through …"', () => {
    const text = [
      '---',
      'phase: 30-tech-debt-cleanup',
      'plan: 03',
      'completed: 2026-03-01',
      '---',
      '## Files Created/Modified',
      '- `25-03-SUMMARY.md` - DOCS-01',
      '- `26-01 through 26-05 SUMMARY.md` - DOCS-01 (all 5 files)',
      '- `docs/My Notes.md` - a path with a space still has its folder',
      '',
    ].join('\n');
    const r = maxsim.parse(new TextEncoder().encode(text), ctx);
    expect(r.ok && r.handoff.claims.artifacts?.map((a) => a.path)).toEqual([
      '25-03-SUMMARY.md',
      'docs/My Notes.md',
    ]);
    expect(r.ok && r.handoff.claims.extra?.['proseArtifacts']).toEqual([
      {
        action: 'Touched',
        text: '26-01 through 26-05 SUMMARY.md - DOCS-01 (all 5 files)',
        why: 'a description, not a path',
      },
    ]);
  });

  it('a forbidden phrase quoted (a mention) is not used: the real 26-03 summary describes the table it added', () => {
    const h = parsed('real-26-03-SUMMARY-quoted-phrase.md');
    expect(h.reasons.map((r) => r.code)).not.toContain('MAXSIM_FORBIDDEN_PHRASE');
    expect(h.status).toBe('partial');
    const used = maxsim.parse(
      new TextEncoder().encode(
        '## Status\nPASS\n\nEvidence:\n- it should work now\n- the table lists "should work"\n',
      ),
      ctx,
    );
    expect(used.ok && used.handoff.reasons.map((r) => r.code)).toContain('MAXSIM_FORBIDDEN_PHRASE');
  });

  it('a summary whose front matter is not YAML is refused with the line to fix, not as no format at all', () => {
    const file = 'real-21-01-SUMMARY-bad-yaml.md';
    const r = maxsim.parse(read(file), { ...ctx, fileName: file });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems[0]).toMatchObject({
      path: 'frontMatter',
      message: expect.stringMatching(/^front matter line 18, column \d+: .*@/),
    });
    expect(detectFormat(read(file), file).module.name).toBe('maxsim');
  });

  it('through record and verify: the real 13-02 summary claims created a file its base already had', async () => {
    // Plan 13-03 ran in parallel and added packages/dashboard/lib/watcher.ts first; 13-02 changed
    // one line of it, and its summary's key-files says created. The other claims hold.
    const repo = gitdir({
      files: {
        'packages/dashboard/lib/watcher.ts': 'export const watch = 1;\n',
        'packages/dashboard/app/layout.tsx': 'export const a = 1;\n',
      },
    });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, {
      'packages/dashboard/server.ts': 'export {};\n',
      'packages/dashboard/lib/websocket.ts': 'export {};\n',
      'packages/dashboard/lib/watcher.ts': 'export const watch = 2;\n',
      'packages/dashboard/app/components/providers/websocket-provider.tsx': 'export {};\n',
      'packages/dashboard/app/layout.tsx': 'export {};\n',
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'feat(13-02)');
    const file = 'real-13-02-SUMMARY-created-in-base.md';
    await recordHandoff({ cwd: repo, base, from: { bytes: read(file), fileName: file } });
    const report = await verifyRepository({ cwd: repo });
    const verdicts = report.records[0]!.checks.filter((c) => c.check === 'claim.artifact').map(
      (c) => `${c.subject} ${c.verdict}`,
    );
    expect(verdicts.sort()).toEqual([
      'packages/dashboard/app/components/providers/websocket-provider.tsx verified',
      'packages/dashboard/app/layout.tsx verified',
      'packages/dashboard/lib/watcher.ts contradicted',
      'packages/dashboard/lib/websocket.ts verified',
      'packages/dashboard/server.ts verified',
    ]);
  });
});
