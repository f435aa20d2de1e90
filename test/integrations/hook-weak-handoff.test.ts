/**
 * Red team, round nine, findings 2 and 4. A part of the final message that a format claims but
 * too weakly to read (or as much as another format) is a handoff ledger refuses, as `record`
 * refuses the same bytes — not "no handoff": told to the user, blocked once under `--block`.
 * A conversational turn stays silent. And a refusal says how the format was chosen: by
 * detection, or by the hook's own `--format`, never a flag nobody gave.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { formatModules, tryDetectFormat } from '../../src/formats/index.js';
import { pickHandoff } from '../../src/integrations/claude-code/handoff.js';
import { cleanup, gitdir } from '../helpers/git.js';
import { answerOf, claudeStop, codexStop, hook, ledgerRefs } from './hook-agents.js';

afterAll(cleanup);

// The red team's two documents: a MaxsimCLI status with no evidence (0.45), a structured
// handoff whose status word is off its enum (0.30).
const MAXSIM_STATUS_ONLY = '## Status\nPASS\n\n## Summary\nFixed the parser; all tests pass.\n';
const STRUCTURED_DONE =
  '## Handoff\n\nStatus: done\n\nSummary:\nFixed the parser; all tests pass.\n\nArtifacts:\n- a.txt\n';
const PROSE =
  'I added a `## Status` section to the README, as you asked, and linked it from the index. ' +
  'Want me to add a badge next to it as well?';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe.each([
  { name: 'MaxsimCLI status only', text: MAXSIM_STATUS_ONLY, format: 'maxsim', confidence: '0.45' },
  { name: 'structured, "done"', text: STRUCTURED_DONE, format: 'structured', confidence: '0.30' },
])('attack: a weakly detected handoff ($name)', ({ text, format, confidence }) => {
  it('attack: is refused, not "no handoff": blocked once under --block refused with detection’s reason, told to the user on the retry and without --block', async () => {
    const repo = gitdir({ files: { 'a.txt': 'hi\n' } });
    const args = ['hook', 'claude-code', '--block', 'refused'];
    const blocked = await hook(args, repo, claudeStop(repo, text));
    expect(blocked.stderr).toBe('');
    expect(blocked.code).toBe(0);
    const answer = answerOf(blocked);
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain(`ledger refused your handoff (read as ${format} only weakly)`);
    expect(answer.reason).toContain(`only at confidence ${confidence}`);
    expect(answer.reason).toContain('too weak to record');

    const retry = answerOf(await hook(args, repo, claudeStop(repo, text, true)));
    expect(retry.decision).toBeUndefined();
    expect(retry.systemMessage).toMatch(/already had one retry/);

    const told = answerOf(await hook(['hook', 'claude-code'], repo, claudeStop(repo, text)));
    expect(told.decision).toBeUndefined();
    expect(told.systemMessage).toContain(`handoff refused (read as ${format} only weakly)`);
    expect(ledgerRefs(repo)).toBe('');
  });

  it('attack: the same under Codex’s documented Stop input and --block lowered', async () => {
    const repo = gitdir({ files: { 'a.txt': 'hi\n' } });
    const r = await hook(['hook', 'codex', '--block', 'lowered'], repo, codexStop(repo, text));
    expect(answerOf(r).decision).toBe('block');
    expect(ledgerRefs(repo)).toBe('');
  });
});

describe('a weakly claimed part is ranked once', () => {
  it('pickHandoff asks each format to detect it once, refusal and claimant from one ranking', () => {
    const spies = formatModules().map((module) => vi.spyOn(module, 'detect'));
    try {
      expect(pickHandoff(MAXSIM_STATUS_ONLY)).toMatchObject({ format: 'maxsim' });
      expect(spies.map((spy) => spy.mock.calls.length)).toEqual(spies.map(() => 1));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('conversational turns stay silent', () => {
  it('a message that names "## Status" in prose scores below any format’s claim and is no handoff', async () => {
    expect(tryDetectFormat(bytes(PROSE))).toMatchObject({ claimant: undefined });
    const repo = gitdir();
    for (const args of [
      ['hook', 'claude-code', '--block', 'refused'],
      ['hook', 'claude-code'],
    ]) {
      const r = await hook(args, repo, claudeStop(repo, PROSE));
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect(ledgerRefs(repo)).toBe('');
  });
});

describe('finding 4: a refusal says how the format was chosen', () => {
  const REFUSED = '## Handoff\n\nStatus: completed\n\nSummary:\nFixed the parser.\n';

  it('a detected format is said to be detected, with its confidence and signals, never "--format X was given"', async () => {
    const repo = gitdir();
    const r = await hook(
      ['hook', 'claude-code', '--block', 'refused'],
      repo,
      claudeStop(repo, REFUSED),
    );
    const reason = answerOf(r).reason ?? '';
    expect(reason).toContain('ledger refused your handoff (structured format)');
    expect(reason).toContain('by detection, at confidence 0.95 on a "## Handoff" heading');
    expect(reason).not.toContain('--format structured was given');
  });

  it('the hook’s own --format is said to be the flag', async () => {
    const repo = gitdir();
    const r = await hook(
      ['hook', 'claude-code', '--block', 'refused', '--format', 'structured'],
      repo,
      claudeStop(repo, REFUSED),
    );
    expect(answerOf(r).reason).toContain('because --format structured was given');
  });
});
