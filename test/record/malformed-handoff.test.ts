/**
 * A malformed handoff is a handoff: a JSON object meant as one (a `status` and handoff keys)
 * that no format recognises is refused with the problems the agent can act on — in `record`,
 * the library/MCP path and the Claude Code hook (blocked under `--block refused`) — never
 * dropped as "no handoff". And an ordinary JSON with a status (an API response) stays no
 * handoff: a false alarm would block an honest conversational turn.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { malformedHandoffFormat } from '../../src/formats/index.js';
import { pickHandoff } from '../../src/integrations/claude-code/handoff.js';
import { runClaudeCodeHook } from '../../src/integrations/claude-code/hook.js';
import { openLedger } from '../../src/library.js';
import { isLedgerError } from '../../src/model/errors.js';
import { cleanup, gitdir, gitTry } from '../helpers/git.js';

afterAll(cleanup);

const DONE = JSON.stringify({ status: 'done', summary: 'Parser added', task: 'T-7' }, null, 2);
const bytes = (text: string) => new Uint8Array(Buffer.from(text));

describe('malformedHandoffFormat: what is meant as a handoff', () => {
  it('a JSON object with a status no format knows and a handoff key: the ledger shape', () => {
    expect(malformedHandoffFormat(bytes(DONE))?.name).toBe('ledger');
    expect(malformedHandoffFormat(bytes('{"status": true, "checks": []}'))?.name).toBe('ledger');
  });

  it('not a handoff: an API response, a status alone, Markdown, a handoff detection reads', () => {
    for (const text of [
      '{"status": 404, "error": "not found"}',
      '{"status": "ok", "data": [1, 2]}',
      '{"status": "done"}',
      '[{"status": "done", "summary": "x"}]',
      'The status is done; summary: parser added.',
      JSON.stringify({ status: 'success', summary: 'fine' }),
    ])
      expect(malformedHandoffFormat(bytes(text)), text).toBeUndefined();
  });

  it('the hook picks it out of a fenced block, and leaves a conversational JSON example alone', () => {
    expect(pickHandoff(`All done.\n\n\`\`\`json\n${DONE}\n\`\`\`\n`)).toMatchObject({
      format: 'ledger',
      from: 'fenced-block',
    });
    expect(
      pickHandoff('The endpoint answers:\n\n```json\n{"status": 404, "error": "missing"}\n```\n'),
    ).toBeUndefined();
  });
});

function ledgerTip(dir: string): number {
  return gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/ledger/log').code;
}

describe('a malformed handoff is refused where it lands', () => {
  it('the library (and so MCP) record: the status problem with the allowed values, nothing written', async () => {
    const dir = gitdir();
    const error = await openLedger(dir)
      .record({ handoff: DONE })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isLedgerError(error)).toBe(true);
    if (!isLedgerError(error)) return;
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.problems).toContainEqual(
      expect.objectContaining({
        path: 'from:status',
        got: 'done',
        expected: expect.stringContaining('success'),
      }),
    );
    expect(ledgerTip(dir)).not.toBe(0);
  });

  it('the Claude Code hook: refused, not "no handoff"; blocked once under --block refused with what to fix', async () => {
    const dir = gitdir();
    const input = (active: boolean) =>
      Buffer.from(
        JSON.stringify({
          session_id: 's',
          transcript_path: join(dir, 'none.jsonl'),
          cwd: dir,
          hook_event_name: 'Stop',
          stop_hook_active: active,
          last_assistant_message: `Finished.\n\n\`\`\`json\n${DONE}\n\`\`\`\n`,
        }),
      );
    const first = await runClaudeCodeHook(input(false), { witnesses: [], block: 'refused' });
    expect(first.outcome).toBe('refused');
    expect(first.blocked).toBe(true);
    expect(first.response.reason).toMatch(/status: unknown status \(expected success \|/);
    expect(first.response.reason).toContain('got done');
    const retry = await runClaudeCodeHook(input(true), { witnesses: [], block: 'refused' });
    expect(retry).toMatchObject({ outcome: 'refused', blocked: false });
    const quiet = await runClaudeCodeHook(input(false), { witnesses: [] });
    expect(quiet).toMatchObject({ outcome: 'refused', blocked: false });
    expect(quiet.response.systemMessage).toContain('handoff refused');
    expect(ledgerTip(dir)).not.toBe(0);
  });
});
