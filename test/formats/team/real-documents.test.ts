/**
 * Subagent results as the toolkit's implementation agents write them (the subagent contract's
 * REFERENCE, English @7242325 and Japanese @580807a): Files Created / Files Modified tables inside
 * Findings. They name files; before, they were free text, and a result could claim a file that
 * does not exist (test/formats/corpus: two lies missed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import { emitAs, type ParseContext, type ParsedHandoff } from '../../../src/formats/index.js';
import { team } from '../../../src/formats/team/index.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';
import { recordOf } from '../helpers.js';

afterAll(cleanup);

const DIR = join(PROJECT_ROOT, 'fixtures', 'handoffs', 'team');
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-02-11T09:08:07Z') };
const read = (file: string): Uint8Array => readFileSync(join(DIR, file));
function parsed(file: string): ParsedHandoff {
  const r = team.parse(read(file), { ...ctx, fileName: file });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}

const FILES = [
  { path: 'src/services/user.ts', action: 'created' },
  { path: 'src/repositories/user.ts', action: 'created' },
  { path: 'tests/services/user.test.ts', action: 'created' },
  { path: 'src/routes/index.ts', action: 'modified' },
  { path: 'src/services/index.ts', action: 'modified' },
];

describe('team results: Files Created / Files Modified', () => {
  it('are artifact claims with their action, in English and in Japanese', () => {
    for (const file of ['upstream-backend-specialist-en.md', 'upstream-backend-specialist-ja.md']) {
      const h = parsed(file);
      expect(h.claims.artifacts, file).toEqual(FILES);
      expect(h.status).toBe('success');
    }
  });

  it('a file:line cell is also a reference, checked like a Key Reference', () => {
    const refs = parsed('upstream-backend-specialist-en.md').claims.references ?? [];
    expect(
      refs.filter((r) => r.note === 'Added user routes' || r.note === 'Export UserService'),
    ).toEqual([
      { path: 'src/routes/index.ts', line: 45, note: 'Added user routes' },
      { path: 'src/services/index.ts', line: 8, note: 'Export UserService' },
    ]);
  });

  it('the result re-emitted in its own shape carries them, and names no loss for them', () => {
    const h = parsed('upstream-backend-specialist-en.md');
    const out = emitAs('team', recordOf(h, 'team'));
    expect(out.losses.filter((l) => l.startsWith('claims.artifacts'))).toEqual([]);
  });

  it('through record and verify: a Files Created row the tree lacks is contradicted', async () => {
    const repo = gitdir({
      files: {
        'src/routes/index.ts': 'line\n'.repeat(60),
        'src/services/index.ts': 'line\n'.repeat(20),
        'src/repositories/product.ts': 'line\n'.repeat(20),
      },
    });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, {
      'src/routes/index.ts': 'changed\n'.repeat(60),
      'src/services/index.ts': 'changed\n'.repeat(20),
      'src/services/user.ts': 'user\n'.repeat(150),
      'tests/services/user.test.ts': 'test\n'.repeat(240),
      // src/repositories/user.ts: claimed created, never written
    });
    const file = 'upstream-backend-specialist-en.md';
    await recordHandoff({ cwd: repo, base, from: { bytes: read(file), fileName: file } });
    const report = await verifyRepository({ cwd: repo });
    const artifacts = report.records[0]!.checks.filter((c) => c.check === 'claim.artifact');
    expect(artifacts.map((c) => `${c.subject} ${c.verdict}`).sort()).toEqual([
      'src/repositories/user.ts contradicted',
      'src/routes/index.ts verified',
      'src/services/index.ts verified',
      'src/services/user.ts verified',
      'tests/services/user.test.ts verified',
    ]);
  });
});
