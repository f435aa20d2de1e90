/**
 * A secret staged and never committed goes where an untracked one goes: into the candidate tree
 * and, with `sync`, to every remote. The scan used to take untracked files only, so an agent
 * could `git add .env` and have it stored and pushed. Attacked as that agent would: staged at
 * the top, deep in a new directory, renamed to look innocent, in a repository with no commit
 * yet, behind a non-UTF-8 sibling name, and staged then edited. Honest work still records:
 * committed files are not re-scanned, staged source records, and the user's own consent
 * (--include-untracked) stores a staged secret knowingly.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENV, noLedger, record, refusal } from '../helpers/secret-record.js';
import { cleanup, git, gitdir, runCli, writeFiles } from '../helpers/git.js';
import { PRIVATE_KEY, TOKENS } from '../helpers/secrets.js';

afterAll(cleanup);

function stage(dir: string, files: Record<string, string>): void {
  writeFiles(dir, files);
  git(dir, 'add', '--', ...Object.keys(files));
}

describe('record: a file staged and never committed that looks secret is refused', () => {
  it('a staged .env: SECRET_FILE naming it as staged, a way out that works, nothing written', async () => {
    const dir = gitdir();
    stage(dir, { '.env': ENV, 'src/new.ts': 'export const y = 2;\n' });
    const error = await refusal(record(dir));
    expect(error.code).toBe('SECRET_FILE');
    expect(error.exitCode).toBe(2);
    expect(error.problems).toEqual([expect.objectContaining({ path: 'staged', got: '.env' })]);
    expect(error.problems[0]!.message).toMatch(/staged .* never committed.*environment file/);
    expect(error.message).toContain('staged: .env');
    // --tracked-only does not help with a tracked file, so the hint does not offer it.
    expect(error.hint).not.toMatch(/--tracked-only/);
    expect(error.hint).toMatch(/git rm --cached \.env/);
    noLedger(dir);
    // The way out the hint names: unstaged and ignored, the record goes through without it.
    git(dir, 'rm', '-q', '--cached', '.env');
    writeFileSync(join(dir, '.gitignore'), '.env\n');
    const outcome = await record(dir);
    expect(
      git(dir, 'ls-tree', '-r', '--name-only', outcome.record.observed.candidate.tree),
    ).not.toContain('.env');
  });

  it('deep in a new directory, and a private key staged under an innocent name: found by content', async () => {
    const dir = gitdir();
    stage(dir, {
      'deploy/prod/config/.env.production': ENV,
      'docs/notes/meeting.txt': PRIVATE_KEY,
      'docs/notes/agenda.md': '# agenda\n',
    });
    const error = await refusal(record(dir));
    expect(error.problems.map((p) => p.got)).toEqual([
      'deploy/prod/config/.env.production',
      'docs/notes/meeting.txt',
    ]);
    expect(error.problems[1]!.message).toMatch(/private key/);
    noLedger(dir);
  });

  it('before the first commit, every staged file is new: a staged token is refused', async () => {
    const dir = gitdir({ empty: true });
    stage(dir, { 'README.md': '# new\n', 'scripts/deploy.sh': `export GH=${TOKENS['github']}\n` });
    const error = await refusal(record(dir));
    expect(error.problems).toEqual([
      expect.objectContaining({ path: 'staged', got: 'scripts/deploy.sh' }),
    ]);
    noLedger(dir);
  });

  it('staged, then edited in the work tree: the scan reads the bytes the candidate tree stores', async () => {
    const dir = gitdir();
    stage(dir, { 'notes.txt': 'nothing here\n' });
    writeFileSync(join(dir, 'notes.txt'), PRIVATE_KEY);
    const error = await refusal(record(dir));
    expect(error.problems).toEqual([expect.objectContaining({ path: 'staged', got: 'notes.txt' })]);
    noLedger(dir);
  });

  it('a sibling whose name is not UTF-8 does not hide its directory from the scan', async () => {
    const dir = gitdir();
    stage(dir, { 'cfg/.env': ENV });
    // A second staged file named with a Latin-1 byte (valid in git, not UTF-8).
    const odd = Buffer.concat([Buffer.from(join(dir, 'cfg/caf')), Buffer.from([0xe9])]);
    writeFileSync(odd, 'x\n');
    execFileSync('git', ['add', '-A'], { cwd: dir });
    const error = await refusal(record(dir));
    expect(error.problems.map((p) => p.got)).toEqual(['cfg/.env']);
    noLedger(dir);
  });

  it('mixed with an untracked secret: both named, each with its own way out', async () => {
    const dir = gitdir();
    stage(dir, { 'a/.env': ENV });
    writeFiles(dir, { 'b/id_ed25519': 'not really a key\n' });
    const error = await refusal(record(dir));
    expect(error.problems.map((p) => [p.path, p.got])).toEqual([
      ['staged', 'a/.env'],
      ['untracked', 'b/id_ed25519'],
    ]);
    noLedger(dir);
  });
});

describe('record: honest staged and committed work is not stopped', () => {
  it('a committed .env that is edited is not re-scanned: committing it was a decision', async () => {
    const dir = gitdir({ files: { '.env.local': 'A=1\n', 'README.md': '# x\n' } });
    writeFileSync(join(dir, '.env.local'), ENV);
    git(dir, 'add', '.env.local');
    const outcome = await record(dir);
    expect(outcome.id).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('a file committed, then moved and staged under a new name, is scanned at its new path', async () => {
    const dir = gitdir({ files: { 'keys/server.txt': 'harmless\n', 'README.md': '# x\n' } });
    git(dir, 'mv', 'keys/server.txt', 'keys/server.pem');
    const error = await refusal(record(dir));
    expect(error.problems).toEqual([
      expect.objectContaining({ path: 'staged', got: 'keys/server.pem' }),
    ]);
  });

  it('staged source files and templates record; --include-untracked stores a staged secret knowingly', async () => {
    const dir = gitdir();
    stage(dir, {
      'src/credentials.ts': 'export function readCredentials() { return process.env.TOKEN; }\n',
      '.env.example': 'DATABASE_URL=\nOPENAI_API_KEY=\n',
    });
    expect((await record(dir)).id).toMatch(/^sha256:[0-9a-f]{64}$/);

    stage(dir, { 'fixtures/test.pem': 'a test fixture\n' });
    await refusal(record(dir));
    const kept = await record(dir, { includeUntracked: ['fixtures/test.pem'] });
    expect(
      git(dir, 'ls-tree', '-r', '--name-only', kept.record.observed.candidate.tree).split('\n'),
    ).toContain('fixtures/test.pem');
  });

  it('through the CLI: exit 2 and the JSON error names the staged file', async () => {
    const dir = gitdir();
    stage(dir, { '.env': ENV });
    const r = await runCli(['record', '--json', '--status', 'success', '--summary', 'x'], dir);
    expect(r.code).toBe(2);
    const answer = JSON.parse(r.stdout) as {
      error: { code: string; problems: { path: string }[] };
    };
    expect(answer.error.code).toBe('SECRET_FILE');
    expect(answer.error.problems[0]!.path).toBe('staged');
    expect(r.stdout + r.stderr).not.toContain('hunter2');
  });
});
