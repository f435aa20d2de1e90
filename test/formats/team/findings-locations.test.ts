/**
 * Issue 20: a Findings section whose `####` subsections hold `| … | File:Line | … |` tables
 * (the subagent contract's own code-explorer example, test/formats/corpus/docs/team): each row
 * is a finding at that place, so verify checks it — a line past the end of the file is
 * contradicted, where before the table was skipped for lack of a severity column.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import { team } from '../../../src/formats/team/index.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const FILE = join(
  PROJECT_ROOT,
  'test',
  'formats',
  'corpus',
  'docs',
  'team',
  'swt-en@7242325-code-explorer-result.md',
);
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `// ${i + 1}`).join('\n');

describe('Findings subsections with File:Line tables', () => {
  it('each row of an #### Entry Points | File:Line | table is a finding at that place', () => {
    const r = team.parse(readFileSync(FILE), {
      repoRoot: '/home/dev/project',
      now: new Date('2026-03-07T10:00:00Z'),
      fileName: 'result.md',
    });
    expect(r.ok).toBe(true);
    expect(r.ok && r.handoff.claims.findings).toEqual([
      {
        severity: 'unknown',
        summary: 'Entry Points: POST /auth/login',
        path: 'src/api/auth.ts',
        line: 45,
      },
      {
        severity: 'unknown',
        summary: 'Entry Points: POST /auth/refresh',
        path: 'src/api/auth.ts',
        line: 89,
      },
      // The Execution Flow and Evidence list items (test/formats/team/findings-lists.test.ts):
      // their places no table or Key Reference names already.
      {
        severity: 'unknown',
        summary: 'Execution Flow: Validation → `src/validators/auth.ts:23` (validateLogin)',
        path: 'src/validators/auth.ts',
        line: 23,
      },
      {
        severity: 'unknown',
        summary: 'Execution Flow: Service → `src/services/auth.ts:67` (authenticate)',
        path: 'src/services/auth.ts',
        line: 67,
      },
      {
        severity: 'unknown',
        summary: 'Execution Flow: Repository → `src/repositories/user.ts:34` (findByEmail)',
        path: 'src/repositories/user.ts',
        line: 34,
      },
    ]);
  });

  it('through record and verify: an entry point past the end of its file is contradicted', async () => {
    const repo = gitdir({ files: { 'README.md': '# x\n' } });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, {
      'src/api/auth.ts': lines(60),
      'src/validators/auth.ts': lines(30),
      'src/services/auth.ts': lines(80),
      'src/middleware/jwt.ts': lines(20),
      'src/repositories/user.ts': lines(40),
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'explore');
    await recordHandoff({
      cwd: repo,
      base,
      from: { bytes: readFileSync(FILE), fileName: 'result.md' },
    });
    const report = await verifyRepository({ cwd: repo });
    const findings = report.records[0]!.checks.filter((c) => c.id?.startsWith('claims.findings'));
    expect(findings.map((c) => `${c.subject} ${c.verdict}`)).toEqual([
      expect.stringMatching(/^src\/api\/auth\.ts:45 verified$/),
      expect.stringMatching(/^src\/api\/auth\.ts:89 contradicted$/),
      expect.stringMatching(/^src\/validators\/auth\.ts:23 verified$/),
      expect.stringMatching(/^src\/services\/auth\.ts:67 verified$/),
      expect.stringMatching(/^src\/repositories\/user\.ts:34 verified$/),
    ]);
  });
});
