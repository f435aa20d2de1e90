/**
 * The real Spec-Workflow-Toolkit code-explorer results of the corpus (English and Japanese), a
 * tree in which every place they name exists, and the two ways the team tests read them: parsed
 * in memory, and recorded then verified (`--strict`) in a real repository.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { team } from '../../../src/formats/team/index.js';
import { git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';

const DOCS = join(PROJECT_ROOT, 'test', 'formats', 'corpus', 'docs', 'team');
export const EN = readFileSync(join(DOCS, 'swt-en@7242325-code-explorer-result.md'), 'utf8');
export const JA = readFileSync(join(DOCS, 'swt-ja@580807a-code-explorer-result.md'), 'utf8');
/** The code-architect example (English): a Pattern Analysis table, an Implementation Map. */
export const ARCHITECT = readFileSync(
  join(DOCS, 'swt-en@7242325-code-architect-result.md'),
  'utf8',
);

export const lines = (n: number): string =>
  Array.from({ length: n }, (_, i) => `// ${i + 1}`).join('\n');
/** A tree in which every place the honest document names exists. */
export const TREE = {
  'src/api/auth.ts': lines(100),
  'src/validators/auth.ts': lines(30),
  'src/services/auth.ts': lines(80),
  'src/middleware/jwt.ts': lines(20),
  'src/repositories/user.ts': lines(40),
};

export function parsed(text: string): ParsedHandoff {
  const r = team.parse(Buffer.from(text), {
    repoRoot: '/home/dev/project',
    now: new Date('2026-03-07T10:00:00Z'),
    fileName: 'result.md',
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}

/** A tree in which every place the honest code-architect example names exists. */
export const ARCHITECT_TREE = {
  'src/services/auth.ts': lines(150),
  'src/repositories/user.ts': lines(40),
  'src/config/auth.ts': lines(20),
  'src/config/jwt.ts': lines(10),
  'src/middleware/jwt.ts': lines(20),
  'src/models/user.ts': lines(20),
  'src/routes/auth.ts': lines(80),
};

/** `text` recorded on a commit of `tree` (after `prepare`), then the repository verified strictly. */
export async function recordAndVerify(
  text: string,
  prepare?: (repo: string) => void,
  tree: Record<string, string> = TREE,
) {
  const repo = gitdir({ files: { 'README.md': '# x\n' } });
  const base = git(repo, 'rev-parse', 'HEAD');
  writeFiles(repo, tree);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'explore');
  prepare?.(repo);
  await recordHandoff({ cwd: repo, base, from: { bytes: Buffer.from(text), fileName: 'r.md' } });
  const report = await verifyRepository({ cwd: repo, strict: true });
  return { exitCode: report.exitCode, checks: report.records[0]!.checks };
}
