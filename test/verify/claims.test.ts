/**
 * Claims mean what they say, checked against real repositories: `Created` is absent from the
 * base tree and present in the candidate, `Modified` present in both and different, `Deleted`
 * present in the base and absent from the candidate; every finding's `path:line` is checked
 * like a Key Reference; a claim that cannot be checked is `unverifiable` with the reason, and
 * lowers nothing. Records are made and verified in-process (the CLI's own wiring is covered in
 * test/formats/handoffs.test.ts and test/cli/formats.test.ts).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { verifyRepository } from '../../src/app/verify.js';
import type { Check } from '../../src/verify/types.js';
import { cleanup, git, gitdir, tempDir, writeFiles } from '../helpers/git.js';
import { maxsimContract } from '../helpers/maxsim-contract.js';

afterAll(cleanup);

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const LINES = (n: number): string =>
  Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

async function recordAndVerify(repo: string, fileName: string, text: string, strict = false) {
  const recorded = await recordHandoff({ cwd: repo, from: { bytes: enc(text), fileName } });
  const report = await verifyRepository({
    cwd: repo,
    ids: [recorded.id],
    ...(strict ? { strict } : {}),
  });
  return { recorded, report, checks: report.records[0]!.checks };
}

const claimChecks = (checks: Check[], kinds: string[]): string[] =>
  checks
    .filter((c) => kinds.includes(c.check))
    .map((c) => `${c.id} ${c.subject} ${c.verdict}`)
    .sort();

describe('Created / Modified / Deleted against the base and the candidate tree', () => {
  it('each action holds only when the two trees show it', async () => {
    const repo = gitdir({
      files: {
        'README.md': '# x\n',
        'src/format.js': 'export {};\n',
        'src/b.ts': 'b\n',
        'old.ts': 'old\n',
      },
    });
    writeFiles(repo, { 'src/new.ts': 'new\n', 'src/b.ts': 'b changed\n' });
    rmSync(join(repo, 'old.ts'));
    const { checks, report } = await recordAndVerify(
      repo,
      'HANDOFF.md',
      maxsimContract([
        '- Created: src/new.ts',
        '- Created: src/format.js',
        '- Modified: src/b.ts',
        '- Modified: README.md',
        '- Modified: src/gone.ts',
        '- Deleted: old.ts',
        '- Deleted: ghost.ts',
      ]),
    );
    expect(claimChecks(checks, ['claim.artifact'])).toEqual(
      [
        'claims.artifacts[0] src/new.ts verified',
        'claims.artifacts[1] src/format.js contradicted',
        'claims.artifacts[2] src/b.ts verified',
        'claims.artifacts[3] README.md contradicted',
        'claims.artifacts[4] src/gone.ts contradicted',
        'claims.artifacts[5] old.ts verified',
        'claims.artifacts[6] ghost.ts contradicted',
      ].sort(),
    );
    expect(checks.find((c) => c.id === 'claims.artifacts[1]')?.detail).toMatch(
      /already in the base tree/,
    );
    expect(checks.find((c) => c.id === 'claims.artifacts[3]')?.detail).toMatch(
      /identical in the base and the candidate/,
    );
    expect(report.exitCode).toBe(1);
  });

  it('files under ### Created / ### Modified subsections are checked; one missing from the commit is contradicted', async () => {
    const repo = gitdir({ files: { 'README.md': '# x\n', 'pkg/fixture.ts': 'a\n' } });
    writeFiles(repo, { 'pkg/dashboard.test.ts': 'test\n', 'pkg/fixture.ts': 'b\n' });
    const { checks } = await recordAndVerify(
      repo,
      '17-01-SUMMARY.md',
      [
        '## Key Decisions',
        '- Inline poll helper',
        '## Artifacts',
        '### Created',
        '- `pkg/dashboard.test.ts` — the e2e suite',
        '- `pkg/helpers/poll.ts` — the polling helper',
        '### Modified',
        '- `pkg/fixture.ts` — title frontmatter',
        '## Status',
        'PASS',
        'Evidence:',
        '- `npx vitest run pkg` 5 passed, 0 failed',
        '## Deferred Items',
        'None',
        '',
      ].join('\n'),
    );
    expect(claimChecks(checks, ['claim.artifact'])).toEqual([
      'claims.artifacts[0] pkg/dashboard.test.ts verified',
      'claims.artifacts[1] pkg/helpers/poll.ts contradicted',
      'claims.artifacts[2] pkg/fixture.ts verified',
    ]);
  });
});

describe('findings are claims too', () => {
  it('a structured finding at line 400 of a 30-line file is contradicted; one inside it is verified', async () => {
    const repo = gitdir({ files: { 'src/feature.js': LINES(30) } });
    const handoff = {
      status: 'completed',
      summary: 'reviewed',
      artifacts: [],
      verification: [{ command: 'npm test', result: 'passed', details: 'ok' }],
      findings: [
        { severity: 'warn', summary: 'off by one', path: 'src/feature.js', line: 400 },
        { severity: 'note', summary: 'naming', path: 'src/feature.js', line: 12 },
        { severity: 'note', summary: 'general', path: null, line: null },
      ],
      recommended_next_stage: null,
    };
    const { checks } = await recordAndVerify(repo, 'review.json', JSON.stringify(handoff));
    expect(claimChecks(checks, ['finding'])).toEqual([
      'claims.findings[0] src/feature.js:400 contradicted',
      'claims.findings[1] src/feature.js:12 verified',
    ]);
    expect(checks.find((c) => c.id === 'claims.findings[0]')?.detail).toBe(
      'line 400 is past the end (30 lines)',
    );
  });

  it("a team result's Findings table file:line is checked, and counts toward the 30% rule", async () => {
    const repo = gitdir({ files: { 'src/a.ts': LINES(10) } });
    const { checks } = await recordAndVerify(
      repo,
      'result.md',
      [
        '## QA Result',
        '### Status',
        'SUCCESS',
        '### Summary',
        'ok',
        '### Findings',
        '| Severity | Issue | File:Line |',
        '|---|---|---|',
        '| minor | a | `src/a.ts:99` |',
        '| minor | b | `src/missing.ts:1` |',
        '### Key References',
        '| Item | Location | Relevance |',
        '|---|---|---|',
        '| x | `src/a.ts:3` | y |',
        '### Confidence',
        '60 - partly read',
        '### Uncertainty',
        'some',
        '',
      ].join('\n'),
    );
    expect(claimChecks(checks, ['finding', 'reference', 'references'])).toEqual(
      [
        'claims.findings[0] src/a.ts:99 contradicted',
        'claims.findings[1] src/missing.ts:1 contradicted',
        'claims.references[0] src/a.ts:3 verified',
        'claims.references result contradicted',
      ].sort(),
    );
  });
});

describe('what cannot be checked is unverifiable, never dropped, never lowering', () => {
  it('prose and a path outside every worktree are unverifiable with the reason; verify still passes without --strict', async () => {
    const repo = gitdir({ files: { 'README.md': '# x\n', 'AGENTS.md': 'a\n' } });
    writeFiles(repo, { 'skills/README.md': 'new\n' });
    rmSync(join(repo, 'AGENTS.md'));
    const text = maxsimContract([
      '- Created: skills/README.md',
      '- Created: 3 new helper files',
      '- Deleted: 14 maxsim-*.md agent files',
      '- Deleted: AGENTS.md',
      '- Modified: /etc/hosts',
    ]);
    const { checks, report, recorded } = await recordAndVerify(repo, 'HANDOFF.md', text);
    expect(recorded.record.observed.effectiveStatus).toBe('success');
    const unverifiable = checks.filter(
      (c) =>
        c.verdict === 'unverifiable' && c.check !== 'claim.check' && c.id?.startsWith('claims.'),
    );
    expect(unverifiable.map((c) => `${c.id} ${c.subject}`).sort()).toEqual(
      [
        'claims.artifacts[2] /etc/hosts',
        'claims.extra.proseArtifacts[0] Created: 3 new helper files',
        'claims.extra.proseArtifacts[1] Deleted: 14 maxsim-*.md agent files',
      ].sort(),
    );
    for (const c of unverifiable) expect(c.detail).toMatch(/cannot check/);
    expect(checks.some((c) => /^(14|3)$/.test(c.subject))).toBe(false);
    expect(report.exitCode).toBe(0);
    const strict = await verifyRepository({ cwd: repo, ids: [recorded.id], strict: true });
    expect(strict.exitCode).toBe(1);
  });

  it('absolute paths under a linked worktree of the repository map into it and are checked', async () => {
    const repo = gitdir({ files: { 'README.md': '# x\n' } });
    const linked = join(tempDir('ledger-wt-'), 'feature');
    git(repo, 'worktree', 'add', '-q', '-b', 'feature', linked);
    writeFiles(repo, { 'src/new.ts': 'new\n' });
    const { checks, recorded } = await recordAndVerify(
      repo,
      'HANDOFF.md',
      maxsimContract([`- Created: ${linked}/src/new.ts`]),
    );
    expect(recorded.record.claims.artifacts).toEqual([
      { path: 'src/new.ts', action: 'created', as: `${linked}/src/new.ts` },
    ]);
    expect(claimChecks(checks, ['claim.artifact'])).toEqual([
      'claims.artifacts[0] src/new.ts verified',
    ]);
  });
});

describe('status', () => {
  it('a record that claims no status says "no status", never "claimed ,"', async () => {
    const repo = gitdir();
    writeFileSync(join(repo, 'x.txt'), 'x\n');
    const recorded = await recordHandoff({ cwd: repo, format: 'mainark', task: 'MAI-1' });
    const report = await verifyRepository({ cwd: repo, ids: [recorded.id] });
    const status = report.records[0]!.checks.find((c) => c.check === 'status');
    expect(status).toMatchObject({
      id: 'claims.status',
      subject: '(no status)',
      verdict: 'verified',
    });
    expect(status?.detail).toMatch(/^no status, effective partial/);
  });
});
