/**
 * Issue 20, "nothing dropped without a word", round eight: a team result's Blockers and
 * Uncertainty sections, and a failed result's Error Details, Attempted Actions and Root Cause
 * Analysis, name places in the code as it stands ("`src/x.ts:40` still throws"). They were kept
 * as section text, neither checked nor said: a place there past the end of its file passed
 * `verify --strict`. Each is now a finding at that place. And the 30% rule counts places: one a
 * Findings row and an Issues item both name is one place, so repeating good places cannot hide a
 * bad one, nor repeating a bad one fail a result whose other places resolve. An insight file's
 * places (the hook's JSON) are Key References, as a result's insight markers are.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';
import { EN, JA, lines, parsed } from './real-result.js';

/** Every place the results below name exists here, at the lengths the honest ones need. */
const TREE = {
  'src/api/auth.ts': lines(100),
  'src/validators/auth.ts': lines(30),
  'src/services/auth.ts': lines(80),
  'src/middleware/jwt.ts': lines(20),
  'src/repositories/user.ts': lines(40),
};

afterAll(cleanup);

function edited(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error('the document changed');
  return text.replace(from, to);
}
const withBlockers = (section: string): string =>
  edited(EN, '### Next Steps\n', `${section}\n\n### Next Steps\n`);
const placesOf = (text: string): string[] =>
  (parsed(text).claims.findings ?? []).flatMap((f) =>
    f.path === undefined ? [] : [`${f.path}:${f.line ?? ''} ${f.summary}`],
  );

describe('places in Blockers, Uncertainty and a failed result’s sections', () => {
  it('are findings at that place, English and Japanese; Recovery Options stay as written', () => {
    const said = placesOf(
      withBlockers(
        [
          '### Blockers',
          '- `src/middleware/jwt.ts:12` still throws on expired tokens | Resolution: a refresh path',
          '### Uncertainty',
          'Whether `src/repositories/user.ts:30` is reached at all.',
          '### Error Details',
          '| Aspect | Value |',
          '|--------|-------|',
          '| Occurred At | src/api/auth.ts:77 |',
          '### Recovery Options',
          '1. Guard `src/api/auth.ts:78` first',
        ].join('\n'),
      ),
    );
    expect(said).toEqual(
      expect.arrayContaining([
        'src/middleware/jwt.ts:12 Blockers: `src/middleware/jwt.ts:12` still throws on expired tokens | Resolution: a refresh path',
        'src/repositories/user.ts:30 Uncertainty: Whether `src/repositories/user.ts:30` is reached at all.',
        'src/api/auth.ts:77 Error Details: Occurred At',
      ]),
    );
    expect(said.some((s) => s.startsWith('src/api/auth.ts:78'))).toBe(false);
    const ja = edited(
      JA,
      '### 次のステップ\n',
      '### ブロッカー\n- `src/api/auth.ts:46` で例外\n\n### 次のステップ\n',
    );
    expect(placesOf(ja)).toContain('src/api/auth.ts:46 ブロッカー: `src/api/auth.ts:46` で例外');
  });
});

/**
 * One repository, three results recorded on it, one verify (cheap: the suite is at its time
 * budget): a Blockers place past the end of its file, and the two ways counting claims rather than
 * places misjudged the 30% rule.
 */
describe('through record and verify, in one repository', () => {
  const result = (summary: string, rows: string[], issues: string[]): string =>
    [
      '## Security Auditor Result',
      '### Status',
      'SUCCESS',
      '### Summary',
      summary,
      '### Findings',
      '| Severity | Location | Issue |',
      '|----------|----------|-------|',
      ...rows,
      '### Issues',
      ...issues,
      '### Key References',
      '| Item | Location | Relevance |',
      '|------|----------|-----------|',
      '| Login | `src/api/auth.ts:45` | entry |',
      '### Confidence',
      '80 - traced',
      '',
    ].join('\n');
  // 1 bad of 3 places (33%): failed, though 1 of 6 claims (17%) passed before.
  const DILUTED = result(
    'Diluted.',
    [
      '| high | `src/api/auth.ts:45` | no rate limit |',
      '| high | `src/services/auth.ts:999` | token never expires |',
      '| low | `src/middleware/jwt.ts:15` | weak check |',
    ],
    [
      '- no rate limit at `src/api/auth.ts:45` | Severity: high',
      '- weak check at `src/middleware/jwt.ts:15` | Severity: low',
    ],
  );
  // 1 bad of 4 places (25%): the bad finding is contradicted, the result is not failed for the
  // share (before: 2 of 6 claims, 33%).
  const REPEATED = result(
    'Repeated.',
    [
      '| high | `src/services/auth.ts:999` | token never expires |',
      '| high | `src/api/auth.ts:45` | no rate limit |',
      '| low | `src/middleware/jwt.ts:15` | weak check |',
      '| low | `src/repositories/user.ts:5` | raw query |',
    ],
    ['- token never expires at `src/services/auth.ts:999` | Severity: high'],
  );
  const BLOCKER = withBlockers('### Blockers\n- `src/middleware/jwt.ts:120` still throws');

  it('a Blockers place past the end is contradicted; the 30% rule counts distinct places', async () => {
    const repo = gitdir({ files: { 'README.md': '# x\n' } });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, TREE);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'audit');
    for (const text of [BLOCKER, DILUTED, REPEATED])
      await recordHandoff({
        cwd: repo,
        base,
        from: { bytes: Buffer.from(text), fileName: 'r.md' },
      });
    const report = await verifyRepository({ cwd: repo, strict: true });
    const of = (summary: string) => {
      const r = report.records.find((x) => x.summary?.startsWith(summary));
      if (r === undefined) throw new Error(`no record of ${summary}`);
      return {
        contradicted: r.checks.filter((c) => c.verdict === 'contradicted').map((c) => c.subject),
        share: r.checks.find((c) => c.id === 'claims.references' && c.check === 'references'),
      };
    };
    expect(of('Traced authentication flow').contradicted).toEqual(['src/middleware/jwt.ts:120']);
    expect(of('Diluted.').share).toEqual(
      expect.objectContaining({
        verdict: 'contradicted',
        detail: '1 of 3 file:line references do not resolve (more than 30%)',
      }),
    );
    // Each claim of the bad place is contradicted (the row and the item); the share is by place.
    expect(of('Repeated.').contradicted).toEqual([
      'src/services/auth.ts:999',
      'src/services/auth.ts:999',
    ]);
    expect(of('Repeated.').share).toBeUndefined();
  });
});

describe('places an insight file names', () => {
  const read = (name: string, text?: string) => {
    const file = join(PROJECT_ROOT, 'test/formats/corpus/docs/team', name);
    return parsed(text ?? readFileSync(file, 'utf8'));
  };
  it('are Key References noted with the category, as a result’s insight markers are', () => {
    const h = read('INS-20261203063220-3646a9ce.json');
    expect(h.claims.references).toEqual([
      {
        path: 'src/routes/users.ts',
        line: 5,
        note: 'PATTERN: Every route file exports a function; new routes follow src/routes/users.ts:5',
      },
    ]);
    expect(h.status).toBe('success');
    expect(h.reasons).toEqual([]);
  });
  it('in the older queue too, each place once; a root-level name that may be a host is said with its line', () => {
    const queue = JSON.stringify(
      {
        workspaceId: 'feature-auth_ac70ee3d',
        created: '2026-12-03T06:32:20Z',
        insights: [
          {
            id: 'INS-20261203063220-3646a9ce',
            category: 'pattern',
            content: 'Routes follow src/routes/users.ts:5',
          },
          {
            id: 'INS-20261203063221-86acbb67',
            category: 'learned',
            content: 'Again src/routes/users.ts:5, and utils.py:40 is odd',
          },
        ],
      },
      null,
      2,
    );
    const h = parsed(queue);
    expect(h.claims.references?.map((r) => `${r.path}:${r.line}`)).toEqual([
      'src/routes/users.ts:5',
    ]);
    expect(h.claims.extra?.['unchecked']).toEqual([
      expect.objectContaining({ line: 13, text: 'utils.py:40' }),
    ]);
  });
});
