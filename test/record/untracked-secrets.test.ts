/**
 * Nothing secret by accident: `record` (and the hook and MCP paths, which share it) refuses an
 * untracked, non-ignored file that looks secret instead of putting it into the candidate tree,
 * which `git push` and `ledger sync` carry to the remote. Attacked as an agent would leave a
 * secret behind: nested, renamed to look innocent, behind a symlink, named as an artifact.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findSecrets, MAX_SCAN_FILE_BYTES } from '../../src/app/secrets.js';
import { MemoryStore } from '../../src/store/memory.js';
import { openRepo } from '../../src/store/git/repo.js';
import { PACK_MIN_OBJECTS, snapshotWorktree } from '../../src/store/git/snapshot.js';
import { GitStore } from '../../src/store/git/store.js';
import { runClaudeCodeHook } from '../../src/integrations/claude-code/hook.js';
import { openLedger } from '../../src/library.js';
import { ENV, noLedger, record, refusal } from '../helpers/secret-record.js';
import { cleanup, git, gitdir, runCli, writeFiles } from '../helpers/git.js';
import { PRIVATE_KEY, TOKENS } from '../helpers/secrets.js';

afterAll(cleanup);

/** Every path in the candidate tree. */
function treePaths(dir: string, tree: string): string[] {
  return git(dir, 'ls-tree', '-r', '--name-only', tree).split('\n');
}

describe('record: an untracked file that looks secret is refused (exit 2), naming it', () => {
  it('an untracked .env: SECRET_FILE, which file and why, the three ways out, nothing written', async () => {
    const dir = gitdir();
    writeFiles(dir, { '.env': ENV, 'src/new.ts': 'export const y = 2;\n' });
    const error = await refusal(record(dir));
    expect(error.code).toBe('SECRET_FILE');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('.env');
    expect(error.problems).toEqual([expect.objectContaining({ path: 'untracked', got: '.env' })]);
    expect(error.problems[0]!.message).toMatch(/environment file/);
    expect(error.hint).toMatch(/\.gitignore/);
    expect(error.hint).toMatch(/--include-untracked \.env/);
    expect(error.hint).toMatch(/--tracked-only/);
    // Nothing of the secret is quoted back.
    expect(JSON.stringify(error.toJSON())).not.toContain('hunter2');
    noLedger(dir);
  });

  it('nested, and a key renamed to look innocent: found by its content; all listed in path order', async () => {
    const dir = gitdir();
    writeFiles(dir, {
      'deploy/config/.env.production': 'X=1\n',
      'notes/meeting.txt': `notes\n\n${PRIVATE_KEY}`,
      'scripts/run.sh': `curl -H "Authorization: token ${TOKENS['github']}" api\n`,
      'src/ok.ts': 'export const ok = true;\n',
    });
    const error = await refusal(record(dir));
    expect(error.code).toBe('SECRET_FILE');
    expect(error.problems.map((p) => p.got)).toEqual([
      'deploy/config/.env.production',
      'notes/meeting.txt',
      'scripts/run.sh',
    ]);
    expect(error.problems[1]!.message).toMatch(/private key/);
    expect(error.problems[2]!.message).toMatch(/GitHub token/);
    noLedger(dir);
  });

  it('an ssh key, a .pem and a credentials.json are refused by name, whatever they hold', async () => {
    for (const name of ['id_ed25519', 'certs/server.pem', '.aws/credentials.json']) {
      const dir = gitdir();
      writeFiles(dir, { [name]: 'harmless\n' });
      const error = await refusal(record(dir));
      expect(error.code, name).toBe('SECRET_FILE');
      expect(error.problems.map((p) => p.got)).toEqual([name]);
    }
  });

  it('--artifact does not wave a secret through: an agent names its artifacts', async () => {
    const dir = gitdir();
    writeFiles(dir, { '.env': ENV });
    const error = await refusal(record(dir, { artifacts: ['.env'] }));
    expect(error.code).toBe('SECRET_FILE');
    noLedger(dir);
  });

  it('honest work is not stopped: templates, code and docs about keys, placeholders', async () => {
    const dir = gitdir();
    writeFiles(dir, {
      '.env.example': 'OPENAI_API_KEY=sk-proj-...\nDATABASE_URL=\n',
      'src/keys.ts': 'export const KEY_HEADER = "-----BEGIN PRIVATE KEY-----";\n',
      'src/credentials.ts': 'export function readCredentials() {}\n',
      'docs/credentials.md': '# Credentials\nSet `AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE`.\n',
      'id_rsa.pub': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE user@host\n',
    });
    const { record: sealed } = await record(dir);
    expect(treePaths(dir, sealed.observed.candidate.tree)).toEqual(
      expect.arrayContaining(['.env.example', 'src/keys.ts', 'docs/credentials.md', 'id_rsa.pub']),
    );
  });
});

describe('ledger record (the CLI)', () => {
  it('exits 2 with SECRET_FILE in --json, then records with --include-untracked and with --tracked-only', async () => {
    const dir = gitdir();
    writeFiles(dir, { '.env': ENV });
    const refused = await runCli(['record', '--status', 'success', '--json'], dir);
    expect(refused.code).toBe(2);
    const body = JSON.parse(refused.stdout);
    expect(body.error).toMatchObject({ code: 'SECRET_FILE', problems: [{ got: '.env' }] });
    expect(refused.stdout + refused.stderr).not.toContain('hunter2');
    noLedger(dir);
    const kept = await runCli(
      ['record', '--status', 'success', '--include-untracked', '.env'],
      dir,
    );
    expect(kept.code, kept.stderr).toBe(0);
    const tracked = await runCli(['record', '--status', 'success', '--tracked-only'], dir);
    expect(tracked.code, tracked.stderr).toBe(0);
  });
});

describe('record: the ways out', () => {
  it('a git-ignored .env is left out of the candidate tree, and the record is made', async () => {
    const dir = gitdir();
    writeFiles(dir, { '.gitignore': '.env\n', '.env': ENV, 'src/new.ts': 'export {};\n' });
    const { record: sealed } = await record(dir);
    const paths = treePaths(dir, sealed.observed.candidate.tree);
    expect(paths).toContain('src/new.ts');
    expect(paths).not.toContain('.env');
  });

  it('--include-untracked stores exactly the named file; another secret is still refused', async () => {
    const dir = gitdir();
    writeFiles(dir, { 'test/fixtures/server.key': 'test key\n', '.env': ENV });
    const error = await refusal(record(dir, { includeUntracked: ['test/fixtures/server.key'] }));
    expect(error.problems.map((p) => p.got)).toEqual(['.env']);
    const { record: sealed } = await record(dir, {
      includeUntracked: ['test/fixtures/server.key', '.env'],
    });
    expect(treePaths(dir, sealed.observed.candidate.tree)).toEqual(
      expect.arrayContaining(['.env', 'test/fixtures/server.key']),
    );
  });

  it('--tracked-only: untracked files stay out, tracked changes and named artifacts go in', async () => {
    const dir = gitdir();
    writeFiles(dir, {
      '.env': ENV,
      'scratch.txt': 'untracked\n',
      'src/app.ts': 'export const x = 2;\n',
      'dist/out.js': 'built\n',
    });
    const { record: sealed } = await record(dir, { trackedOnly: true, artifacts: ['dist/out.js'] });
    const tree = sealed.observed.candidate.tree;
    const paths = treePaths(dir, tree);
    expect(paths).not.toContain('.env');
    expect(paths).not.toContain('scratch.txt');
    expect(paths).toContain('dist/out.js');
    expect(git(dir, 'cat-file', '-p', `${tree}:src/app.ts`)).toBe('export const x = 2;');
  });

  it('a symlink to a secret stores only the link path, never the secret: recorded', async () => {
    const dir = gitdir();
    writeFiles(dir, { '.gitignore': '.env\n', '.env': ENV });
    symlinkSync('.env', join(dir, 'settings'));
    mkdirSync(join(dir, 'home'));
    symlinkSync('/etc/hostname', join(dir, 'home', 'id_rsa'));
    const { record: sealed } = await record(dir);
    const tree = sealed.observed.candidate.tree;
    expect(git(dir, 'cat-file', '-p', `${tree}:settings`)).toBe('.env');
    expect(git(dir, 'ls-tree', '-r', tree)).not.toContain('.env\n');
  });

  it('a tracked secret is out of scope: it is already in git, and is not refused', async () => {
    const dir = gitdir({ files: { '.env': 'A=1\n', 'README.md': '# r\n' } });
    writeFileSync(join(dir, '.env'), ENV);
    const { record: sealed } = await record(dir);
    expect(sealed.observed.candidate.tree).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('the hook and MCP paths refuse the same way', () => {
  const HANDOFF = JSON.stringify({ status: 'success', summary: 'done', task: 'T-1' });

  it('the Claude Code hook blocks once under --block refused, naming the file and the way out', async () => {
    const dir = gitdir();
    writeFiles(dir, { '.env': ENV });
    const input = (active: boolean) =>
      Buffer.from(
        JSON.stringify({
          session_id: 's',
          transcript_path: join(dir, 'none.jsonl'),
          cwd: dir,
          hook_event_name: 'Stop',
          stop_hook_active: active,
          last_assistant_message: `Done.\n\n\`\`\`json\n${HANDOFF}\n\`\`\`\n`,
        }),
      );
    const first = await runClaudeCodeHook(input(false), { witnesses: [], block: 'refused' });
    expect(first.outcome).toBe('refused');
    expect(first.blocked).toBe(true);
    expect(first.response.reason).toContain('.env');
    expect(first.response.reason).toContain('.gitignore');
    const retry = await runClaudeCodeHook(input(true), { witnesses: [], block: 'refused' });
    expect(retry.blocked).toBe(false);
    expect(retry.response.systemMessage).toContain('.env');
    noLedger(dir);
  });

  it('the library (and so MCP) record: SECRET_FILE, nothing written', async () => {
    const dir = gitdir();
    writeFiles(dir, { 'creds.txt': `user=me\npassword=${TOKENS['aws']}\n` });
    const error = await refusal(openLedger(dir).record({ handoff: HANDOFF }));
    expect(error.code).toBe('SECRET_FILE');
    noLedger(dir);
  });
});

describe('findSecrets reads what was stored, within its bounds', () => {
  it('scans the stored blob, not the work tree: a file rewritten after the snapshot cannot slip past', async () => {
    const store = new MemoryStore();
    // The snapshot stored the key; whatever the work tree holds now is not what is pushed.
    const bytes = Buffer.from(PRIVATE_KEY);
    const blob = await store.write('blob', bytes);
    const found = await findSecrets(
      store,
      [{ path: 'notes.txt', mode: '100644', blob, size: bytes.length }],
      new Set(),
    );
    expect(found).toEqual([{ path: 'notes.txt', reason: expect.stringMatching(/private key/) }]);
  });

  it('a blob over the scan bound is judged by its name only: a huge file cannot stall record', async () => {
    const store = new MemoryStore();
    const big = Buffer.alloc(MAX_SCAN_FILE_BYTES + 1, 0x20);
    big.write(TOKENS['github']!, 10);
    const blob = await store.write('blob', big);
    const file = { mode: '100644', blob, sha256: '', size: big.length };
    expect(await findSecrets(store, [{ path: 'data.bin', ...file }], new Set())).toEqual([]);
    expect(await findSecrets(store, [{ path: 'big.pem', ...file }], new Set())).toHaveLength(1);
  });
});

describe('the secret scan reads the bytes the snapshot hashed, not git again', () => {
  it.each([
    ['a few files (loose objects)', 3],
    ['a large change (the pack workers)', PACK_MIN_OBJECTS + 20],
  ])(
    '%s: held bytes are the stored blobs, byte for byte; a secret among them is refused',
    async (_, count) => {
      const dir = gitdir();
      const files: Record<string, string> = {};
      for (let i = 0; i < count; i++) files[`gen/f${i}.txt`] = `file ${i}\n`.repeat(1 + (i % 7));
      files['gen/notes.txt'] = `notes\n\n${PRIVATE_KEY}`;
      writeFiles(dir, { ...files, 'README.md': '# edited, tracked\n' });
      const paths = await openRepo(dir);
      const store = new GitStore(paths);
      try {
        const snapshot = await snapshotWorktree(paths, store, {
          include: [],
          hold: { maxFileBytes: MAX_SCAN_FILE_BYTES, maxTotalBytes: 1024 * 1024 },
        });
        // Untracked files only; tracked changes are out of the scan's scope.
        expect([...snapshot.held.keys()].sort()).toEqual(Object.keys(files).sort());
        for (const [path, bytes] of snapshot.held) {
          const stored = execFileSync('git', ['cat-file', 'blob', snapshot.files.get(path)!.blob], {
            cwd: dir,
          });
          expect(Buffer.from(bytes).equals(stored), path).toBe(true);
        }
        const found = await findSecrets(
          store,
          [...snapshot.untracked].map((path) => snapshot.files.get(path)!),
          new Set(),
          snapshot.held,
        );
        expect(found).toEqual([
          { path: 'gen/notes.txt', reason: expect.stringMatching(/private key/) },
        ]);
      } finally {
        store.close();
      }
      const error = await refusal(record(dir));
      expect(error.code).toBe('SECRET_FILE');
      expect(error.problems.map((p) => p.got)).toEqual(['gen/notes.txt']);
      noLedger(dir);
    },
  );

  it('held bytes stop at the total bound; the rest is read from the store and still scanned', async () => {
    const dir = gitdir();
    writeFiles(dir, { 'a.txt': 'x'.repeat(1000), 'b.txt': 'y'.repeat(1000), 'z.txt': PRIVATE_KEY });
    const paths = await openRepo(dir);
    const store = new GitStore(paths);
    try {
      const snapshot = await snapshotWorktree(paths, store, {
        include: [],
        hold: { maxFileBytes: MAX_SCAN_FILE_BYTES, maxTotalBytes: 1500 },
      });
      expect(snapshot.held.size).toBeLessThan(3);
      const found = await findSecrets(
        store,
        [...snapshot.untracked].map((path) => snapshot.files.get(path)!),
        new Set(),
        snapshot.held,
      );
      expect(found.map((f) => f.path)).toEqual(['z.txt']);
    } finally {
      store.close();
    }
  });
});
