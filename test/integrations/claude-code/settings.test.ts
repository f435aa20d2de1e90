/**
 * `ledger init --claude-code` through the real CLI: merging into an existing
 * `.claude/settings.json` without disturbing it, idempotently, refusing what it must not
 * write — and the command it writes, run the way Claude Code runs a hook (through a shell).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/library.js';
import { BIN, cleanup, git, gitdir, runCli, tempDir } from '../../helpers/git.js';
import { stopInput, transcriptLines, writeTranscript } from './transcripts.js';

afterAll(cleanup);

const EXISTING = {
  permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./.env)'] },
  env: { FOO: 'bar' },
  hooks: {
    PreToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 .claude/hooks/safety.py' }] },
    ],
    Stop: [
      {
        matcher: '',
        hooks: [{ type: 'command', command: '.claude/hooks/summary.sh', timeout: 5 }],
      },
    ],
  },
};

/** `ledger` on PATH as npm link and npm install -g make it: a link to this install's bin/run.js. */
function linkedLedger(): Record<string, string> {
  const dir = tempDir();
  symlinkSync(BIN, join(dir, 'ledger'));
  return { PATH: `${dir}:${process.env['PATH'] ?? ''}` };
}

function settingsPath(repo: string): string {
  return join(repo, '.claude', 'settings.json');
}

describe('ledger init --claude-code', () => {
  it('--sign (and --signing-key) go into the hook command, as `ledger hook claude-code --sign` takes them', async () => {
    const repo = gitdir();
    const onPath = linkedLedger();
    const signed = await runCli(
      ['init', '--claude-code', '--sign', '--signing-key', '/keys/my key', '--json'],
      repo,
      onPath,
    );
    expect(signed.code, signed.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(settingsPath(repo), 'utf8'));
    expect(settings.hooks.Stop[0].hooks[0].command).toBe(
      "ledger hook claude-code --sign --signing-key '/keys/my key'",
    );
    const alone = await runCli(['init', '--sign'], repo, onPath);
    expect(alone.code).toBe(2);
  });

  it('adds the hook to Stop and SubagentStop, keeping everything else, idempotently', async () => {
    const repo = gitdir();
    mkdirSync(join(repo, '.claude'));
    writeFileSync(settingsPath(repo), `${JSON.stringify(EXISTING, null, 4)}\n`);

    const onPath = linkedLedger();
    const first = await runCli(['init', '--claude-code', '--json'], repo, onPath);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).claudeCode.events).toEqual([
      { event: 'Stop', change: 'added' },
      { event: 'SubagentStop', change: 'added' },
    ]);
    const text = readFileSync(settingsPath(repo), 'utf8');
    expect(text).toMatch(/^{\n {4}"permissions"/); // the file's own indentation
    const settings = JSON.parse(text);
    const ours = { hooks: [{ type: 'command', command: 'ledger hook claude-code' }] };
    expect(settings).toEqual({
      ...EXISTING,
      hooks: {
        ...EXISTING.hooks,
        Stop: [...EXISTING.hooks.Stop, ours],
        SubagentStop: [ours],
      },
    });

    const again = await runCli(['init', '--claude-code', '--json'], repo, onPath);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).claudeCode.events.map((e: any) => e.change)).toEqual([
      'unchanged',
      'unchanged',
    ]);
    expect(readFileSync(settingsPath(repo), 'utf8')).toBe(text);

    const changed = await runCli(
      [
        'init',
        '--claude-code',
        '--witness',
        "npm test -- --grep 'it''s'",
        '--block',
        'lowered',
        '--json',
      ],
      repo,
      onPath,
    );
    expect(changed.code).toBe(0);
    const updated = JSON.parse(readFileSync(settingsPath(repo), 'utf8'));
    const entry = {
      type: 'command',
      command: `ledger hook claude-code --witness 'npm test -- --grep '\\''it'\\'''\\''s'\\''' --block lowered`,
      timeout: 660,
    };
    // Updated in place: still one ledger entry per event, the other hooks untouched.
    expect(updated.hooks.Stop).toEqual([...EXISTING.hooks.Stop, { hooks: [entry] }]);
    expect(updated.hooks.SubagentStop).toEqual([{ hooks: [entry] }]);
    expect(updated.hooks.PreToolUse).toEqual(EXISTING.hooks.PreToolUse);
  });

  it('writes a command that works when a shell runs it, as Claude Code does, with no ledger on PATH', async () => {
    const repo = gitdir();
    const witness = `test "$(cat src/app.ts)" = 'export const x = 1;'`;
    // No `ledger` on PATH (npx, a checkout): init says the command holds this machine's paths.
    const init = await runCli(
      ['init', '--claude-code', '--witness', witness, '--block', 'lowered', '--json'],
      repo,
    );
    expect(init.code).toBe(0);
    expect(JSON.parse(init.stdout).warnings).toEqual([
      expect.stringMatching(/^`ledger` is not on PATH: .*npm install -g handoff-ledger/),
    ]);
    const settings = JSON.parse(readFileSync(settingsPath(repo), 'utf8'));
    const command: string = settings.hooks.Stop[0].hooks[0].command;
    expect(command.startsWith(`${process.execPath} ${BIN} hook claude-code`)).toBe(true);

    // Run as Claude Code runs it: a shell, with a PATH with git and no ledger on it.
    const bin = tempDir();
    const transcript = writeTranscript(tempDir(), 's.jsonl', transcriptLines([], { cwd: repo }));
    const input = stopInput({
      transcript,
      cwd: repo,
      lastMessage: '```json\n{"status": "success", "summary": "via the installed hook"}\n```',
    });
    const run = spawnSync('/bin/sh', ['-c', command], {
      cwd: repo,
      input: JSON.stringify(input),
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:/usr/bin:/bin` },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).systemMessage).toMatch(/recorded sha256:.* \(success\)/);
    const [recorded] = await openLedger(repo).log();
    const shown = await openLedger(repo).show(recorded!.id);
    expect(shown.observed.witnesses).toMatchObject([{ command: witness, exitCode: 0 }]);
  });

  it('refuses a settings file that is not JSON, or a link, and writes nothing at all', async () => {
    const repo = gitdir();
    git(repo, 'remote', 'add', 'origin', tempDir());
    const fetchBefore = git(repo, 'config', '--get-all', 'remote.origin.fetch');
    mkdirSync(join(repo, '.claude'));
    writeFileSync(settingsPath(repo), '{ "hooks": { // comments are not JSON\n } }\n');
    const broken = await runCli(['init', '--claude-code', '--json'], repo);
    expect(broken.code).toBe(2);
    expect(JSON.parse(broken.stdout).error.code).toBe('INVALID_INPUT');
    expect(readFileSync(settingsPath(repo), 'utf8')).toContain('comments are not JSON');
    expect(git(repo, 'config', '--get-all', 'remote.origin.fetch')).toBe(fetchBefore);

    // A link planted in the work tree would have the user's init write anywhere.
    const elsewhere = join(tempDir(), 'bashrc');
    writeFileSync(elsewhere, 'export PATH=/usr/bin\n');
    const linked = gitdir();
    mkdirSync(join(linked, '.claude'));
    symlinkSync(elsewhere, settingsPath(linked));
    const refused = await runCli(['init', '--claude-code', '--json'], linked);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error.code).toBe('UNSAFE_PATH');
    expect(readFileSync(elsewhere, 'utf8')).toBe('export PATH=/usr/bin\n');
  });

  it('refuses hook flags without --claude-code', async () => {
    const repo = gitdir();
    const result = await runCli(['init', '--block', 'lowered', '--json'], repo);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error.problems).toEqual([
      { path: 'block', message: 'needs --claude-code, --codex, --gemini or --cursor' },
    ]);
  });
});
