/**
 * Red team, round nine, against `ledger mcp` — the tools in memory (src/mcp/tools.ts and the
 * cutter behind them, src/mcp/bound.ts), each attack as the record or the call that made it:
 *   - finding 2: a map of short members (a MaxsimCLI handoff's artifact notes) was never cut,
 *     so `show` answered hundreds of kilobytes under a note saying it had been cut to fit, and
 *     the cutter threw away ledger's reasons and lifecycle to keep the agent's padding;
 *   - finding 5: a text cut to 200 characters plus "…" was picked again and again, and every
 *     round re-serialised the whole answer: one record froze the server for minutes;
 *   - finding 3: the record tool's schema invited calls the transport drops with the session;
 *   - finding 4: verify's compact answer read the whole ledger a second time for the tasks, and
 *     one damaged record elsewhere turned a pass into exit 3.
 * The answers are checked as the SDK's client checks them: against the tool's outputSchema.
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { openLedger, LedgerError, type Ledger, type ShowJson } from '../../src/library.js';
import { ANSWER_LIMIT } from '../../src/mcp/bound.js';
import { callTool, listTools, toolOutputSchema } from '../../src/mcp/tools.js';
import { cleanup, gitdir } from '../helpers/git.js';
import { callBytes, maxsimHandoff, worstBytes } from './red-team-nine-helpers.js';

afterAll(cleanup);

type Structured = Record<string, any>;

/** A real `show` answer of a small MaxsimCLI record: what the attacks below inflate. */
let base: ShowJson;

beforeAll(async () => {
  const ledger = openLedger({ cwd: gitdir() });
  const { id } = await ledger.record({ handoff: maxsimHandoff(['a note']) });
  base = await ledger.show(id);
}, 60_000);

/** `base` with `count` artifacts, each with a note of `length` characters. */
function withNotes(count: number, length: number, ...longer: number[]): Structured {
  const answer = structuredClone(base) as Structured;
  const paths = Array.from({ length: count + longer.length }, (_, i) => `src/f${i}.ts`);
  answer['claims'].artifacts = paths.map((path) => ({ path, action: 'created' }));
  answer['claims'].extra.artifactNotes = Object.fromEntries(
    paths.map((path, i) => [path, 'y'.repeat(i < count ? length : longer[i - count]!)]),
  );
  return answer;
}

/** The show tool over a ledger whose record is `answer`; the SDK client's checks applied. */
async function show(answer: Structured) {
  const ledger = { cwd: '/nowhere', show: async () => answer } as unknown as Ledger;
  const started = Date.now();
  const result = (await callTool('show', { id: answer['id'] }, { ledger, witnesses: [] }))!;
  const ms = Date.now() - started;
  const text = result.content[0]!.text;
  const data = result.structuredContent as Structured;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(toolOutputSchema('show'));
  expect(validate(data), ajv.errorsText(validate.errors).slice(0, 2000)).toBe(true);
  expect(JSON.parse(text)).toEqual(data);
  return { text, data, ms };
}

describe('red team nine: every answer fits, whatever the record holds', () => {
  it('attack: 2,000 artifact notes of 180 characters (a map, never cut) — show answers within the limit, and the note that says so is true', async () => {
    const { text, data } = await show(withNotes(2_000, 180));
    expect(text.length).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(text.length).toBeLessThanOrEqual(data['truncated'].limit);
    expect(data['truncated'].cuts).toContainEqual(
      expect.objectContaining({ path: 'claims.extra.artifactNotes', of: 2_000, unit: 'items' }),
    );
    expect(data['id']).toBe(base.id);
    // Ledger's findings survive the agent's padding.
    expect(data['reasons']).toEqual(base.reasons);
    expect(data['lifecycle']).toEqual(base.lifecycle);
  });

  it('attack: what the agent wrote is cut before ledger’s reasons and the lifecycle, even when the reasons are the largest list', async () => {
    const answer = structuredClone(base) as Structured;
    answer['claims'].decisions = Array.from({ length: 6 }, (_, i) => ({
      text: `${i} ${'d'.repeat(2_000)}`,
    }));
    answer['reasons'] = Array.from({ length: 60 }, (_, i) => ({
      code: 'MAXSIM_NO_EVIDENCE_BLOCKS',
      message: `${i} ${'r'.repeat(190)}`,
    }));
    answer['lifecycle'] = {
      ...answer['lifecycle'],
      chain: Array.from({ length: 10 }, (_, i) => `sha256:${i.toString(16).padStart(64, '0')}`),
    };
    // As the attack needs it: the reasons outweigh the agent's decisions, and the answer fits
    // without the decisions.
    const size = (v: unknown) => JSON.stringify(v).length;
    expect(size(answer['reasons'])).toBeGreaterThan(size(answer['claims'].decisions));
    expect(size(answer)).toBeGreaterThan(ANSWER_LIMIT);
    expect(size(answer) - size(answer['claims'].decisions)).toBeLessThan(ANSWER_LIMIT - 3_000);
    const { text, data } = await show(answer);
    expect(text.length).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(data['reasons']).toEqual(answer['reasons']);
    expect(data['lifecycle']).toEqual(answer['lifecycle']);
    expect(data['truncated'].cuts).toContainEqual(
      expect.objectContaining({ path: 'claims.decisions', of: 6 }),
    );
  });

  it('attack: a note of 300 characters among 2,000 of 180 — cut once, never again: the answer is cut in well under a second, not ten thousand rounds', async () => {
    const { text, data, ms } = await show(withNotes(2_000, 180, 300));
    expect(ms).toBeLessThan(1_500);
    expect(text.length).toBeLessThanOrEqual(ANSWER_LIMIT);
    for (const note of Object.values(data['claims'].extra.artifactNotes ?? {}))
      expect((note as string).length).toBeLessThanOrEqual(200);
  });

  it('attack: members no cut may drop (2,000 short ones its schema does not name) — a minimal answer that surely fits: the id, the statuses and how to get the whole', async () => {
    const answer = structuredClone(base) as Structured;
    for (let i = 0; i < 2_000; i += 1) answer[`x${i}`] = 'j'.repeat(150);
    const { text, data } = await show(answer);
    expect(text.length).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(data).toMatchObject({
      ok: true,
      exitCode: 0,
      id: base.id,
      claimedStatus: base.claimedStatus,
      effectiveStatus: base.effectiveStatus,
    });
    expect(data['truncated'].hint).toContain(`ledger show ${base.id} --json`);
    expect(data['x0']).toBeUndefined();
  });

  it('honest: an answer under the limit is given whole, with no note', async () => {
    const { data } = await show(withNotes(20, 100));
    expect(data['claims'].extra.artifactNotes).toEqual(
      withNotes(20, 100)['claims'].extra.artifactNotes,
    );
    expect(data['truncated']).toBeUndefined();
  });
});

describe('red team nine: a call the schema accepts fits the transport', () => {
  it('attack: the largest call each tool’s published input schema accepts, every character escaped to six bytes, fits the stdio transport’s 10 MiB (with a 64 KiB read of the next message)', () => {
    for (const tool of listTools()) {
      const bytes = callBytes(tool.name, worstBytes(tool.inputSchema));
      expect(bytes, tool.name).toBeLessThanOrEqual(STDIO_DEFAULT_MAX_BUFFER_SIZE - 64 * 1024);
    }
  });
});

describe('red team nine: verify’s compact answer is a view of the verify report', () => {
  it('attack: a damaged record outside the ids asked for — the summary answers as detail "full" does, its tasks from the report', async () => {
    const id = `sha256:${'a'.repeat(64)}`;
    const check = { id: 'c1', check: 'artifact', subject: 'f', verdict: 'verified', detail: 'ok' };
    const report = {
      ok: true,
      exitCode: 0,
      ledger: [],
      records: [{ id, task: 'a', verdict: 'verified', checks: [check] }],
      notes: [],
    };
    const damaged = new LedgerError('INTEGRITY', 'record sha256:bbbb… does not decode');
    const ledger = {
      cwd: '/nowhere',
      verify: async () => report,
      log: async () => Promise.reject(damaged),
    } as unknown as Ledger;
    const result = (await callTool('verify', { ids: [id] }, { ledger, witnesses: [] }))!;
    expect(result.structuredContent).toMatchObject({
      ok: true,
      exitCode: 0,
      detail: 'summary',
      records: [{ id, task: 'a', verdict: 'verified' }],
    });
    expect(result.isError).toBe(false);
  });
});
