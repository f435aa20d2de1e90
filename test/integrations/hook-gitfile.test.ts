/**
 * Red team, round nine, finding 3: the unattended writers — every `ledger hook AGENT`, the MCP
 * server's record tool — run as the user, outside the agent's sandbox, and the agent wrote the
 * project's `.git`. A git dir that sends the writes to another repository (a planted gitfile,
 * a `.git/commondir`, a symlinked `refs`) is refused, naming where the writes would have gone;
 * a linked work tree and a submodule, which link back, are recorded as before, and a `ledger
 * record` typed by the user is not checked.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/library.js';
import { callTool } from '../../src/mcp/tools.js';
import { cleanup, git, gitdir, gitTry, runCli, tempDir } from '../helpers/git.js';
import {
  answerOf,
  claudeStop,
  cursorResponse,
  cursorStop,
  geminiAfterAgent,
  hook,
  ledgerRefs,
} from './hook-agents.js';

afterAll(cleanup);

const HANDOFF = JSON.stringify({ status: 'success', summary: 'Fixed the thing.', task: 'T-1' });

/** The user's other repository, which the agent cannot write, and the agent's project. */
function victimAndProject(): { other: string; project: string } {
  const other = gitdir({ files: { 'v.txt': 'v\n' } });
  const project = gitdir({ files: { 'a.txt': 'hi\n' } });
  writeFileSync(join(project, 'agent-file.txt'), 'planted by the agent\n');
  return { other, project };
}

/** The agent's move: its .git set aside, a one-line gitfile naming the other repository. */
function plantGitfile(project: string, other: string): void {
  renameSync(join(project, '.git'), join(project, '.git-mine'));
  writeFileSync(join(project, '.git'), `gitdir: ${join(other, '.git')}\n`);
}

/** No ledger ref there, and the agent's file not among its objects. */
function untouched(other: string, project: string): void {
  expect(ledgerRefs(other)).toBe('');
  const blob = git(tempDir(), 'hash-object', '--no-filters', join(project, 'agent-file.txt'));
  expect(gitTry(other, 'cat-file', '-e', blob).code).not.toBe(0);
}

describe('attack: the project’s .git planted to send the record into another repository', () => {
  it('attack: Gemini CLI, .git a gitfile naming another repository: nothing written there, the user told where it pointed', async () => {
    const { other, project } = victimAndProject();
    plantGitfile(project, other);
    const env = { GEMINI_PROJECT_DIR: project };
    const told = await hook(['hook', 'gemini'], project, geminiAfterAgent(project, HANDOFF), env);
    expect(told.stderr).toBe('');
    expect(told.code).toBe(0);
    const message = answerOf(told).systemMessage ?? '';
    expect(message).toMatch(/^ledger: handoff not recorded:/);
    expect(message).toContain(join(other, '.git'));
    expect(message).toContain('ledger record');
    const denied = await hook(
      ['hook', 'gemini', '--block', 'refused'],
      project,
      geminiAfterAgent(project, HANDOFF),
      env,
    );
    expect(answerOf(denied).decision).toBe('deny');
    untouched(other, project);
  });

  it('attack: Cursor, .git a gitfile naming another repository: nothing written there, the stop follows up once', async () => {
    const { other, project } = victimAndProject();
    plantGitfile(project, other);
    const env = { XDG_STATE_HOME: tempDir() };
    const args = ['hook', 'cursor', '--block', 'refused'];
    const response = await hook(args, project, cursorResponse([project], HANDOFF), env);
    expect(response).toEqual({ code: 0, stdout: '', stderr: '' });
    const stop = await hook(args, project, cursorStop([project]), env);
    expect(answerOf(stop).followup_message ?? '').toContain(join(other, '.git'));
    untouched(other, project);
  });

  it('attack: Claude Code, a gitfile in a subdirectory and cd into it: nothing written in the repository it names', async () => {
    const { other, project } = victimAndProject();
    const sub = join(project, 'sub');
    mkdirSync(sub);
    writeFileSync(join(sub, '.git'), `gitdir: ${join(other, '.git')}\n`);
    const r = await hook(['hook', 'claude-code'], sub, claudeStop(sub, HANDOFF), {
      CLAUDE_PROJECT_DIR: project,
    });
    expect(r.code).toBe(0);
    expect(answerOf(r).systemMessage).toMatch(/^ledger: handoff not recorded:/);
    untouched(other, project);
    expect(ledgerRefs(project)).toBe('');
  });

  it('attack: a .git directory whose commondir names another repository: refused', async () => {
    const { other, project } = victimAndProject();
    // The other repository's objects hold the project's commit (a fork, say): git reads on.
    git(other, 'fetch', '-q', project, 'main:refs/heads/project');
    for (const dir of ['objects', 'refs']) rmSync(join(project, '.git', dir), { recursive: true });
    for (const dir of ['objects', 'refs']) mkdirSync(join(project, '.git', dir));
    writeFileSync(join(project, '.git', 'commondir'), `${join(other, '.git')}\n`);
    const r = await hook(['hook', 'gemini'], project, geminiAfterAgent(project, HANDOFF), {
      GEMINI_PROJECT_DIR: project,
    });
    expect(r.code).toBe(0);
    const message = answerOf(r).systemMessage ?? '';
    expect(message).toMatch(/^ledger: handoff not recorded:/);
    expect(message).toContain('commondir');
    untouched(other, project);
  });

  it('attack: .git/refs and .git/objects symlinked into another repository: refused before anything is written there', async () => {
    const { other, project } = victimAndProject();
    git(other, 'fetch', '-q', project, 'main:refs/heads/project');
    for (const dir of ['objects', 'refs']) {
      rmSync(join(project, '.git', dir), { recursive: true });
      symlinkSync(join(other, '.git', dir), join(project, '.git', dir));
    }
    const r = await hook(['hook', 'gemini'], project, geminiAfterAgent(project, HANDOFF), {
      GEMINI_PROJECT_DIR: project,
    });
    expect(r.code).toBe(0);
    expect(answerOf(r).systemMessage).toContain('is a symbolic link to');
    untouched(other, project);
  });

  it('attack: the MCP server’s record tool in a project whose .git names another repository: refused, nothing written there', async () => {
    const { other, project } = victimAndProject();
    plantGitfile(project, other);
    const result = await callTool(
      'record',
      { handoff: HANDOFF },
      { ledger: openLedger(project), witnesses: [] },
    );
    expect(result?.isError).toBe(true);
    expect(result?.structuredContent).toMatchObject({
      ok: false,
      exitCode: 2,
      error: { code: 'UNSUPPORTED_REPOSITORY' },
    });
    expect(JSON.stringify(result?.structuredContent)).toContain(join(other, '.git'));
    untouched(other, project);
  });
});

describe('the record checks the repository it writes through', () => {
  it('attack: the library’s record with ownGitDirOnly (what the MCP record tool asks) refuses a planted gitfile itself, nothing written there; without it the user’s own record goes ahead', async () => {
    const { other, project } = victimAndProject();
    plantGitfile(project, other);
    await expect(
      openLedger(project).record({ handoff: HANDOFF, ownGitDirOnly: true }),
    ).rejects.toMatchObject({ code: 'UNSUPPORTED_REPOSITORY' });
    untouched(other, project);
    await openLedger(project).record({ handoff: HANDOFF });
    expect(ledgerRefs(other)).not.toBe('');
  });
});

describe('git dirs that link back are the project’s own', () => {
  it('a linked work tree (git worktree add) is recorded, by the hook and by the MCP record tool', async () => {
    const main = gitdir({ files: { 'a.txt': 'hi\n' } });
    const wt = join(tempDir(), 'wt');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', wt);
    const r = await hook(['hook', 'claude-code'], wt, claudeStop(wt, HANDOFF), {
      CLAUDE_PROJECT_DIR: wt,
    });
    expect(r.stderr).toBe('');
    expect(answerOf(r).systemMessage).toMatch(/^ledger: recorded sha256:/);
    const mcp = await callTool(
      'record',
      { handoff: HANDOFF },
      { ledger: openLedger(wt), witnesses: [] },
    );
    expect(mcp?.isError).toBe(false);
    expect(await openLedger(main).log()).toHaveLength(2);
  });

  it('a submodule (its git dir under the superproject’s .git/modules) is recorded', async () => {
    const library = gitdir({ files: { 'lib.txt': 'lib\n' } });
    const superproject = gitdir({ files: { 'a.txt': 'hi\n' } });
    git(superproject, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib');
    const sub = join(superproject, 'lib');
    const r = await hook(['hook', 'claude-code'], sub, claudeStop(sub, HANDOFF), {
      CLAUDE_PROJECT_DIR: sub,
    });
    expect(r.stderr).toBe('');
    expect(answerOf(r).systemMessage).toMatch(/^ledger: recorded sha256:/);
    expect(await openLedger(sub).log()).toHaveLength(1);
  });

  it('git init --separate-git-dir cannot be told from a planted gitfile: the hook says so and names it, and ledger record by hand still records there', async () => {
    const project = join(tempDir(), 'project');
    const gitDir = join(tempDir(), 'elsewhere.git');
    git(tempDir(), 'init', '-q', '-b', 'main', '--separate-git-dir', gitDir, project);
    writeFileSync(join(project, 'a.txt'), 'hi\n');
    git(project, 'add', '-A');
    git(project, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'commit', '-qm', 'init');
    const r = await hook(['hook', 'claude-code'], project, claudeStop(project, HANDOFF), {
      CLAUDE_PROJECT_DIR: project,
    });
    const message = answerOf(r).systemMessage ?? '';
    expect(message).toContain(gitDir);
    expect(message).toContain('separate-git-dir');
    expect(message).toContain('ledger record');
    const typed = await runCli(['record', '--status', 'success', '--summary', 'by hand'], project);
    expect(typed.stderr).toBe('');
    expect(typed.code).toBe(0);
    expect(await openLedger(project).log()).toHaveLength(1);
  });
});
