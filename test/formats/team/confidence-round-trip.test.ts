/**
 * Issue 20, 7b: a success recorded in another format, shown `--as team` and recorded back,
 * comes back partial, because the subagent contract requires a `### Confidence` of 0-100 and
 * the source stated none. The contract has no word for "not stated" (SKILL.md: `[0-100] -
 * [Brief justification]`), so the honest rendering leaves the section out rather than invent a
 * number, and the loss report says what the read-back will be and why.
 */
import { describe, expect, it } from 'vitest';
import { emitAs, formatModule } from '../../../src/formats/index.js';
import { recordOf } from '../helpers.js';

const context = { repoRoot: '/repo', now: new Date('2026-03-07T10:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('a success without a confidence, converted --as team and recorded back', () => {
  it('invents no confidence; the loss report names the missing Confidence; read back it is partial', () => {
    const parsed = formatModule('ledger').parse(
      enc(JSON.stringify({ status: 'success', summary: 'did it', task: 'T-9' })),
      context,
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const record = recordOf(parsed.handoff, 'ledger');
    const shown = emitAs('team', record);
    const text = new TextDecoder().decode(shown.bytes);
    expect(text).not.toMatch(/Confidence/);
    expect(shown.losses).toContainEqual(
      expect.stringMatching(
        /^observed\.effectiveStatus \(success; .* partial: read back, the Confidence section .* missing\)$/,
      ),
    );
    const back = formatModule('team').parse(shown.bytes, { ...context, fileName: 'result.md' });
    if (!back.ok) throw new Error(JSON.stringify(back.problems));
    expect(back.handoff.status).toBe('partial');
    expect(back.handoff.claims.confidence).toBeUndefined();
    expect(back.handoff.reasons).toContainEqual(
      expect.objectContaining({ code: 'TEAM_MISSING_SECTION', subject: 'Confidence' }),
    );
  });

  it('a stated confidence is carried, and the result reads back as the success it was', () => {
    const parsed = formatModule('team').parse(
      enc(
        [
          '## Agent Result',
          '### Status\nSUCCESS',
          '### Summary\ndid it',
          '### Findings\nNone',
          '### Key References\n| Item | Location | Relevance |\n|---|---|---|',
          '### Confidence\n70 - read the code',
          '### Uncertainty\nnone',
          '',
        ].join('\n\n'),
      ),
      { ...context, fileName: 'result.md' },
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const record = recordOf(parsed.handoff, 'team');
    const shown = emitAs('team', record);
    const back = formatModule('team').parse(shown.bytes, { ...context, fileName: 'result.md' });
    if (!back.ok) throw new Error(JSON.stringify(back.problems));
    expect(back.handoff.claims.confidence).toEqual(parsed.handoff.claims.confidence);
    expect(back.handoff.status).toBe(parsed.handoff.status);
  });
});
