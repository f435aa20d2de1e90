/**
 * Invisible characters (issue 16, item 11): every format character (`\p{Cf}`) and every
 * default-ignorable code point — tag characters, zero-width characters, Hangul fillers,
 * variation selectors, bidi controls — is shown as a visible escape in terminal text, terminal
 * JSON, Markdown and the HTML page. The set is generated from Unicode's own properties, not
 * listed by hand, so a character a hand-made list forgot cannot slip through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, gitdir } from '../helpers/git.js';
import { cli, cliText, makeUser, record } from '../adversarial/helpers.js';
import { escapeForTerminal, sanitizeLine, toTerminalJson } from '../../src/paths/index.js';
import { escapeHtml, escapeMarkdown } from '../../src/report/escape.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { AuditReport } from '../../src/report/model.js';

const INVISIBLE = /\p{Cf}|\p{Default_Ignorable_Code_Point}/u;

/** Every code point that is `Cf` or Default_Ignorable_Code_Point. */
function invisibleCodePoints(): number[] {
  const out: number[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (INVISIBLE.test(String.fromCodePoint(cp))) out.push(cp);
  }
  return out;
}

const ALL = invisibleCodePoints();
const RAW = /\p{Cf}|\p{Default_Ignorable_Code_Point}/u;

describe('invisible characters', () => {
  it('the generated set holds the ones an attacker reaches for (tags, fillers, selectors, zero-width)', () => {
    for (const cp of [
      0xe0001, 0xe0041, 0xe007f, 0x115f, 0x1160, 0x3164, 0xffa0, 0xfe00, 0xfe0f, 0xe0100, 0xe01ef,
      0x180b, 0x180f, 0x034f, 0x00ad, 0x2060, 0x206f, 0xfeff, 0x1bca0, 0x1bca3, 0x17b4, 0x17b5,
      0x200b, 0x202e,
    ])
      expect(ALL).toContain(cp);
    expect(ALL.length).toBeGreaterThan(4000);
  });

  it('every Cf and default-ignorable code point is escaped in terminal text, terminal JSON, Markdown and HTML', () => {
    const missed: Record<string, string[]> = {};
    const miss = (where: string, cp: number) =>
      (missed[where] ??= []).push(`U+${cp.toString(16).toUpperCase()}`);
    for (const cp of ALL) {
      const char = String.fromCodePoint(cp);
      const text = `a${char}b`;
      const outputs: Record<string, string> = {
        escapeForTerminal: escapeForTerminal(text),
        sanitizeLine: sanitizeLine(text),
        toTerminalJson: toTerminalJson({ text }),
        escapeMarkdown: escapeMarkdown(text),
        escapeHtml: escapeHtml(text),
      };
      for (const [where, out] of Object.entries(outputs)) {
        if (RAW.test(out)) miss(where, cp);
        // Shown, not dropped: the escape names the code point (JSON as a surrogate pair, below).
        else if (where !== 'toTerminalJson' && !out.toLowerCase().includes(cp.toString(16)))
          miss(`${where} (dropped)`, cp);
      }
      // JSON escapes keep the value: the same string comes back.
      expect((JSON.parse(outputs.toTerminalJson!) as { text: string }).text).toBe(text);
    }
    expect(missed).toEqual({});
  });

  it('the Markdown summary and the HTML page show none of them raw, wherever agent text lands', () => {
    const hostile = String.fromCodePoint(...ALL);
    const check = {
      id: 'c',
      check: 'claim.artifact',
      subject: hostile,
      verdict: 'contradicted' as const,
      detail: hostile,
    };
    const report: AuditReport = {
      generatedAt: '2026-01-01T00:00:00.000Z',
      ledgerVersion: '0.0.0',
      ok: false,
      exitCode: 1,
      strict: false,
      notes: [hostile],
      ledger: [check],
      records: [
        {
          id: `sha256:${'e'.repeat(64)}`,
          verdict: 'contradicted',
          verdicts: ['contradicted'],
          integrity: false,
          record: {
            format: hostile,
            task: `T-1${hostile}`,
            run: hostile,
            summary: hostile,
            recordedAt: '2026-01-01T00:00:00.000Z',
            producer: hostile,
            claimedStatus: hostile,
            effectiveStatus: hostile,
            reasons: [],
            artifacts: [],
            anchors: { baseCommit: null, baseTree: 'a'.repeat(40), candidateTree: 'b'.repeat(40) },
            witnesses: [
              { command: hostile, exitCode: 0, signal: null, timedOut: false, durationMs: 1 },
            ],
          },
          checks: [check],
          signatures: [],
        },
      ],
      counts: { contradicted: 2, unverifiable: 0, stale: 0, verified: 0 },
      tasks: [`T-1${hostile}`],
    };
    const markdown = renderMarkdown(report);
    const page = renderHtml(report);
    // Markdown escapes the escape's own backslash and braces; the code point stays named.
    expect(markdown).toContain('u\\{e0041\\}');
    expect(page).toContain('\\u{e0041}');
    expect([...markdown].filter((c) => RAW.test(c))).toEqual([]);
    expect([...page].filter((c) => RAW.test(c))).toEqual([]);
  });
});

describe('a task name with a tag character in it', () => {
  afterEach(cleanup);

  it('log shows it escaped, and --task finds it by the shown form or the stored value, never by the look-alike', async () => {
    const user = makeUser();
    const dir = gitdir();
    const lookalike = 'T-1\u{e0041}';
    await record(user, dir, { status: 'success', summary: 'the real one', task: 'T-1' });
    await record(user, dir, { status: 'failed', summary: 'the look-alike', task: lookalike });
    const text = await cliText(user, dir, ['log']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('T-1\\u{e0041}');
    expect([...text.stdout].filter((c) => RAW.test(c))).toEqual([]);

    const summaries = async (task: string) =>
      ((await cli(user, dir, ['log', '--task', task])).json as { summary: string }[]).map(
        (r) => r.summary,
      );
    expect(await summaries('T-1')).toEqual(['the real one']);
    expect(await summaries(lookalike)).toEqual(['the look-alike']);
    expect(await summaries('T-1\\u{e0041}')).toEqual(['the look-alike']);
  });
});
