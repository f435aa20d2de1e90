/**
 * Red team, round nine, finding 1: the hooks record into the agent's project — the directory the
 * agent's runtime names to its hooks (Claude Code's CLAUDE_PROJECT_DIR, Gemini CLI's
 * GEMINI_PROJECT_DIR, Cursor's workspace_roots) — not into whatever repository the agent last
 * `cd`'d into; a turn that ended inside another repository is told, never recorded there.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/library.js';
import { cleanup, git, gitdir, tempDir } from '../helpers/git.js';
import {
  answerOf,
  claudeStop,
  codexStop,
  cursorResponse,
  cursorStop,
  geminiAfterAgent,
  hook,
  ledgerRefs,
} from './hook-agents.js';

afterAll(cleanup);

// The red team's handoff: claims completed, its own verification table says the test passed.
const COMPLETED = `## Handoff

Status: completed

Summary:
Fixed the thing.

Artifacts:
- a.txt

Verification:
| command | result | details |
|---|---|---|
| sh test.sh | passed | all green |

Findings:
| severity | path | line | summary |
|---|---|---:|---|
| note | a.txt | 1 | fine |

Recommended next stage:
reviewer: look
`;

const GATE = ['hook', 'claude-code', '--witness', 'sh test.sh', '--block', 'lowered'];

/** A project whose test fails, holding a repository the agent made whose test passes. */
function projectWithNestedRepo(): { project: string; nested: string } {
  const project = gitdir({ files: { 'test.sh': 'exit 1\n', 'a.txt': 'hi\n' } });
  const nested = join(project, 'vendor', 'tool');
  mkdirSync(nested, { recursive: true });
  git(nested, 'init', '-q', '-b', 'main');
  writeFileSync(join(nested, 'test.sh'), 'exit 0\n');
  writeFileSync(join(nested, 'a.txt'), 'hi\n');
  git(nested, 'add', '-A');
  git(nested, '-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '-qm', 'x');
  return { project, nested };
}

describe('ledger hook claude-code: the project is CLAUDE_PROJECT_DIR, not the last cd', () => {
  it('attack: a nested repository whose test passes, cd into it, hand over "completed": not recorded as a success there, and the stop is blocked', async () => {
    const { project, nested } = projectWithNestedRepo();
    const r = await hook(GATE, nested, claudeStop(nested, COMPLETED), {
      CLAUDE_PROJECT_DIR: project,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const answer = answerOf(r);
    expect(answer.systemMessage ?? '').not.toMatch(/\(success\)/);
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain(`the turn ended in ${nested}, inside another repository`);
    expect(answer.reason).toContain(`cd ${project}`);
    expect(ledgerRefs(nested)).toBe('');
    expect(ledgerRefs(project)).toBe('');
  });

  it('attack: cd into a linked work tree of an older, passing commit: not recorded as that tree', async () => {
    const project = gitdir({ files: { 'test.sh': 'exit 0\n', 'a.txt': 'hi\n' } });
    const old = git(project, 'rev-parse', 'HEAD');
    writeFileSync(join(project, 'test.sh'), 'exit 1\n');
    git(project, 'commit', '-qam', 'break it');
    git(project, 'worktree', 'add', '-q', '--detach', join(project, '.wt', 'x'), old);
    const wt = join(project, '.wt', 'x');
    const r = await hook(GATE, wt, claudeStop(wt, COMPLETED), { CLAUDE_PROJECT_DIR: project });
    expect(r.code).toBe(0);
    const answer = answerOf(r);
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain('inside another repository');
    expect(ledgerRefs(project)).toBe('');
  });

  it('attack: cd .git before ending the turn: the handoff is recorded in the project (lowered, blocked), not lost to a failure', async () => {
    const project = gitdir({ files: { 'test.sh': 'exit 1\n', 'a.txt': 'hi\n' } });
    const inside = join(project, '.git');
    const r = await hook(GATE, inside, claudeStop(inside, COMPLETED), {
      CLAUDE_PROJECT_DIR: project,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const answer = answerOf(r);
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain('the effective status is failed');
    expect(await openLedger(project).log()).toHaveLength(1);
  });

  it('a turn that ended in a submodule is not sent to the submodule’s ledger: the user and the agent are told', async () => {
    const library = gitdir({ files: { 'lib.txt': 'lib\n' } });
    const project = gitdir({ files: { 'test.sh': 'exit 0\n', 'a.txt': 'hi\n' } });
    git(project, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib');
    git(project, 'commit', '-qm', 'add lib');
    const sub = join(project, 'lib');
    const told = await hook(['hook', 'claude-code'], sub, claudeStop(sub, COMPLETED), {
      CLAUDE_PROJECT_DIR: project,
    });
    expect(told.code).toBe(0);
    const answer = answerOf(told);
    expect(answer.decision).toBeUndefined();
    expect(answer.systemMessage).toMatch(/^ledger: handoff not recorded:/);
    expect(answer.systemMessage).toContain('inside another repository');
    expect(ledgerRefs(sub)).toBe('');
  });

  it('a turn that ended in a plain subdirectory of the project is recorded in the project', async () => {
    const project = gitdir({
      files: { 'test.sh': 'exit 0\n', 'a.txt': 'hi\n', 'src/x.ts': '1\n' },
    });
    const src = join(project, 'src');
    const r = await hook(GATE, src, claudeStop(src, COMPLETED), { CLAUDE_PROJECT_DIR: project });
    expect(r.stderr).toBe('');
    expect(answerOf(r).systemMessage).toMatch(/^ledger: recorded sha256:[0-9a-f]{64} \(success\)$/);
    expect(await openLedger(project).log()).toHaveLength(1);
  });

  it('without CLAUDE_PROJECT_DIR (an older Claude Code) the input’s cwd is the project, as before', async () => {
    const project = gitdir({ files: { 'test.sh': 'exit 1\n', 'a.txt': 'hi\n' } });
    const r = await hook(GATE, project, claudeStop(project, COMPLETED));
    expect(answerOf(r).decision).toBe('block');
    expect(await openLedger(project).log()).toHaveLength(1);
  });
});

describe('the other agents name their project too', () => {
  it('Gemini CLI: GEMINI_PROJECT_DIR and the documented AfterAgent input record into the project, whatever the hook’s own directory', async () => {
    const project = gitdir({ files: { 'test.sh': 'exit 0\n', 'a.txt': 'hi\n' } });
    const r = await hook(
      ['hook', 'gemini', '--witness', 'sh test.sh'],
      tempDir(),
      geminiAfterAgent(project, COMPLETED),
      { GEMINI_PROJECT_DIR: project, CLAUDE_PROJECT_DIR: project },
    );
    expect(r.stderr).toBe('');
    expect(answerOf(r).systemMessage).toMatch(/\(success\)$/);
    expect(await openLedger(project).log()).toHaveLength(1);
  });

  it('Cursor: the first of workspace_roots is the project, even when the hook runs elsewhere', async () => {
    const project = gitdir({ files: { 'test.sh': 'exit 1\n', 'a.txt': 'hi\n' } });
    const env = { XDG_STATE_HOME: tempDir() };
    const args = ['hook', 'cursor', '--witness', 'sh test.sh', '--block', 'lowered'];
    const elsewhere = tempDir();
    const recorded = await hook(args, elsewhere, cursorResponse([project], COMPLETED), env);
    expect(recorded).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await openLedger(project).log()).toHaveLength(1);
    const stop = await hook(args, elsewhere, cursorStop([project]), env);
    expect(answerOf(stop).followup_message ?? '').toContain('WITNESS_FAILED');
  });

  it('Cursor, a multi-root workspace whose first root is in no repository: the first root in one is the project', async () => {
    const notes = tempDir();
    const project = gitdir({ files: { 'test.sh': 'exit 1\n', 'a.txt': 'hi\n' } });
    const env = { XDG_STATE_HOME: tempDir() };
    const args = ['hook', 'cursor', '--witness', 'sh test.sh', '--block', 'lowered'];
    const recorded = await hook(args, tempDir(), cursorResponse([notes, project], COMPLETED), env);
    expect(recorded).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await openLedger(project).log()).toHaveLength(1);
  });

  it('Cursor: a first root whose .git does not open is not passed over for the next root', async () => {
    const broken = gitdir({ files: { 'test.sh': 'exit 1\n', 'a.txt': 'hi\n' } });
    writeFileSync(join(broken, '.git', 'HEAD'), 'not a ref\n');
    const passing = gitdir({ files: { 'test.sh': 'exit 0\n', 'a.txt': 'hi\n' } });
    const args = ['hook', 'cursor', '--witness', 'sh test.sh'];
    const r = await hook(args, tempDir(), cursorResponse([broken, passing], COMPLETED), {
      XDG_STATE_HOME: tempDir(),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(broken);
    expect(ledgerRefs(passing)).toBe('');
  });

  it('Codex CLI names no project directory: its input’s cwd is the project', async () => {
    const project = gitdir({ files: { 'test.sh': 'exit 0\n', 'a.txt': 'hi\n' } });
    const r = await hook(
      ['hook', 'codex', '--witness', 'sh test.sh'],
      project,
      codexStop(project, COMPLETED),
      { CLAUDE_PROJECT_DIR: tempDir() },
    );
    expect(r.stderr).toBe('');
    expect(answerOf(r).systemMessage).toMatch(/\(success\)$/);
    expect(await openLedger(project).log()).toHaveLength(1);
  });
});
