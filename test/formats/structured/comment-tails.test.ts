/**
 * The text after `-->` on the line that ends an HTML comment block is shown (red team round 15,
 * readers finding 6). CommonMark 4.6: the HTML block runs to the end of the line holding `-->`,
 * and what follows the comment there is output raw, so GitHub shows it. Blanking the whole line
 * hid a failed verification row written there from the structured reader: effective success.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { structured } from '../../../src/formats/structured/index.js';
import { cleanup, gitdir, runCli, tempDir, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
function parsed(text: string): ParsedHandoff {
  const r = structured.parse(new TextEncoder().encode(text), ctx);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const handoff = (verification: string): string =>
  '## Handoff\n\nStatus: completed\n\nSummary:\nAdded a.\n\nArtifacts:\n- src/a.ts\n\n' +
  `Verification:\n| command | result | details |\n|---|---|---|\n| true | passed | smoke |\n${verification}\n\n` +
  'Findings:\n| severity | path | line | summary |\n|---|---|---:|---|\n\nRecommended next stage:\nnone\n';

describe('attack: the text after a comment’s closing `-->` is read, as GitHub shows it', () => {
  const TAILS = {
    'a one-line comment': '<!-- the suite, run last: -->| npm test | failed | 3 failing |',
    'a comment block’s closing line':
      '<!-- the suite, run last\n(kept for the reviewer) -->| npm test | failed | 3 failing |',
  };

  it('after a one-line comment, the failed row is a row: the handoff fails', () => {
    expect(parsed(handoff(TAILS['a one-line comment'])).status).toBe('failed');
  });

  it('after a comment block’s closing line, the row stands apart from the table: refused', () => {
    const r = structured.parse(
      new TextEncoder().encode(handoff(TAILS['a comment block’s closing line'])),
      ctx,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.got)).toContain('| npm test | failed | 3 failing |');
  });

  it('a comment with nothing after it still hides what is in it', () => {
    const h = parsed(handoff('<!-- | npm test | failed | 3 failing | -->'));
    expect(h.status).toBe('success');
  });

  it('through record: effective failed, and verify --strict fails', async () => {
    const repo = gitdir({ files: { 'README.md': 'base\n' } });
    writeFiles(repo, { 'src/a.ts': 'export const a = 1;\n' });
    const doc = join(tempDir(), 'handoff.md');
    writeFileSync(doc, handoff(TAILS['a one-line comment']));
    const rec = await runCli(['record', '--from', doc, '--format', 'structured'], repo);
    expect(rec.code, rec.stderr).toBe(0);
    const id = rec.stdout.trim();
    const show = await runCli(['show', id, '--json'], repo);
    expect((JSON.parse(show.stdout) as { effectiveStatus: string }).effectiveStatus).toBe('failed');
    const strict = await runCli(['verify', '--strict', id], repo);
    expect(strict.code, strict.stdout).toBe(1);
  });
});
