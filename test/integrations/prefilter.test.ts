/**
 * Issue 18, a cheap turn: the pre-filter that lets `ledger hook AGENT` answer a conversational
 * turn before loading anything may only ever say "no handoff" where the full path would find
 * none. Attacked with every handoff fixture and corpus document (bare, in a fence, after prose),
 * and with generated messages held against pickHandoff itself. In memory: no process, no git.
 */
import fc from 'fast-check';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pickHandoff } from '../../src/integrations/claude-code/handoff.js';
import { cheapHookAgent, nothingToDo } from '../../src/integrations/fast-path.js';
import { mayHoldHandoff } from '../../src/integrations/prefilter.js';
import { entryPath, writeOutcome } from '../../src/integrations/cursor-state.js';
import { PROJECT_ROOT } from '../helpers/git.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every handoff document the project holds: the format fixtures and the real-document corpus. */
const DOCUMENTS = [
  ...filesUnder(join(PROJECT_ROOT, 'fixtures', 'handoffs')).filter(
    (f) => !f.endsWith('.expected.json'),
  ),
  ...filesUnder(join(PROJECT_ROOT, 'test', 'formats', 'corpus', 'docs')),
].map((path) => ({ name: relative(PROJECT_ROOT, path), text: readFileSync(path, 'utf8') }));

const CONVERSATION = [
  'Done — I renamed the helper and updated the two call sites. Want me to add a test as well?',
  'Sure, I can look into that next. Which branch should I use?',
  'The parser reads the file once and caches it; nothing else changed.',
];

const utf8 = (value: unknown) => new Uint8Array(Buffer.from(JSON.stringify(value), 'utf8'));

describe('the pre-filter drops no handoff', () => {
  it('passes every handoff fixture and corpus document: bare, fenced after prose, and quoted mid-message', () => {
    expect(DOCUMENTS.length).toBeGreaterThan(80); // the sets are there
    const dropped: string[] = [];
    for (const { name, text } of DOCUMENTS) {
      const shapes = {
        bare: text,
        fenced: `Here is my handoff.\n\n\`\`\`\n${text}\n\`\`\`\n`,
        tilde: `Finished.\n~~~json\n${text}\n~~~`,
        indented: `Finished:\n\n   \`\`\`\n${text}\n   \`\`\``,
        crlf: text.replace(/\n/g, '\r\n'),
      };
      for (const [shape, message] of Object.entries(shapes))
        if (!mayHoldHandoff(message)) dropped.push(`${name} (${shape})`);
    }
    expect(dropped).toEqual([]);
  });

  it('is true wherever pickHandoff finds a handoff, on generated messages', () => {
    const fragment = fc.constantFrom(
      'All done.',
      'I changed src/app.ts.',
      '{"status": "success", "summary": "x"}',
      '{"claims": ["parser works"]}',
      '{"schema": "kxm.handoff-manifest.v1"}',
      '[1, 2]',
      '## Summary',
      '### Status',
      'PASS',
      'SUCCESS',
      'Status: completed',
      'status: blocked',
      'Verification: npm test passed',
      'Findings: none',
      'Recommended next stage: review',
      '**Phase:** 01',
      '**Plan:** 02',
      '---',
      'phase: 01',
      'plan: 02',
      'status: complete',
      '## Code Explorer Result',
      '## Key Decisions',
      '- `src/a.ts`',
      '```',
      '```json',
      '~~~',
      '# Handoff',
      'Confidence: 90',
      '',
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), fc.boolean(), (parts, crlf) => {
        const message = parts.join(crlf ? '\r\n' : '\n');
        if (pickHandoff(message) !== undefined) expect(mayHoldHandoff(message)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('lets plain conversational turns through as no handoff', () => {
    for (const text of CONVERSATION) expect(mayHoldHandoff(text)).toBe(false);
    expect(mayHoldHandoff('   \n')).toBe(false);
  });
});

describe('the cheap path only skips what the full path would skip', () => {
  it('never answers with --json, --format, or help: those always take the full path', () => {
    expect(cheapHookAgent(['hook', 'claude-code', '--block', 'lowered'])).toBe('claude-code');
    expect(cheapHookAgent(['hook', 'codex'])).toBe('codex');
    expect(cheapHookAgent(['hook', 'gemini', '--witness', 'npm test'])).toBe('gemini');
    // --format makes every message a handoff of that format: none is "no handoff".
    expect(cheapHookAgent(['hook', 'claude-code', '--format', 'maxsim'])).toBeUndefined();
    expect(cheapHookAgent(['hook', 'claude-code', '--format=maxsim'])).toBeUndefined();
    expect(cheapHookAgent(['hook', 'claude-code', '--json'])).toBeUndefined();
    expect(cheapHookAgent(['hook', 'claude-code', '-h'])).toBeUndefined();
    expect(cheapHookAgent(['hook', 'windsurf'])).toBeUndefined();
    expect(cheapHookAgent(['record', 'claude-code'])).toBeUndefined();
  });

  it('skips conversational stops and other events, and hands everything else on', async () => {
    const stop = (fields: Record<string, unknown>) => ({
      hook_event_name: 'Stop',
      session_id: 's',
      cwd: '/nowhere',
      stop_hook_active: false,
      ...fields,
    });
    const talk = CONVERSATION[0]!;
    expect(await nothingToDo('claude-code', utf8(stop({ last_assistant_message: talk })))).toBe(
      true,
    );
    expect(await nothingToDo('codex', utf8(stop({ last_assistant_message: null })))).toBe(true);
    expect(
      await nothingToDo('gemini', utf8({ hook_event_name: 'AfterAgent', prompt_response: talk })),
    ).toBe(true);
    expect(await nothingToDo('gemini', utf8({ hook_event_name: 'BeforeTool' }))).toBe(true);
    expect(await nothingToDo('claude-code', utf8({ hook_event_name: 'PreToolUse' }))).toBe(true);

    const handoff = '```json\n{"status": "done"}\n```';
    const goOn = [
      ['claude-code', stop({ last_assistant_message: handoff })],
      ['codex', stop({ last_assistant_message: handoff })],
      ['gemini', { hook_event_name: 'AfterAgent', prompt_response: handoff }],
      // A Stop that is not Gemini's event is not Gemini's stop, but AfterAgent is not Claude's.
      ['claude-code', stop({ last_assistant_message: 42 })], // wrong type: the full path says so
      ['claude-code', stop({ transcript_path: '/no/such/transcript.jsonl' })], // unreadable
      ['claude-code', stop({})], // names no transcript
      ['claude-code', { hook_event_name: 7 }],
      ['claude-code', ['Stop']],
    ] as const;
    for (const [agent, payload] of goOn)
      expect(await nothingToDo(agent, utf8(payload))).toBe(false);
    expect(await nothingToDo('claude-code', new Uint8Array(Buffer.from('{not json')))).toBe(false);
  });

  it('Cursor: a conversational afterAgentResponse and a stop with no entry in the state dir are nothing; a handoff, a wrong-typed text or a pending entry go on', async () => {
    const ids = { conversation_id: 'c-prefilter', generation_id: `g-${process.pid}` };
    const response = (text: unknown) =>
      utf8({ hook_event_name: 'afterAgentResponse', ...ids, text });
    const stop = utf8({ hook_event_name: 'stop', ...ids, status: 'completed', loop_count: 0 });
    expect(await nothingToDo('cursor', response(CONVERSATION[0]!))).toBe(true);
    expect(await nothingToDo('cursor', response(null))).toBe(true);
    expect(await nothingToDo('cursor', stop)).toBe(true);
    expect(await nothingToDo('cursor', utf8({ hook_event_name: 'beforeSubmitPrompt' }))).toBe(true);
    expect(await nothingToDo('cursor', response('```json\n{"status": "done"}\n```'))).toBe(false);
    expect(await nothingToDo('cursor', response(42))).toBe(false);
    const path = entryPath(ids.conversation_id, ids.generation_id)!;
    await writeOutcome(path, { outcome: 'refused', followup: 'fix it' });
    try {
      expect(await nothingToDo('cursor', stop)).toBe(false);
    } finally {
      rmSync(path, { force: true });
    }
  });
});
