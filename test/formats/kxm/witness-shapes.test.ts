/**
 * The witness exit code of a KXM handoff page is read as GitHub shows it (red team round 15,
 * readers finding 3). Each shape below shows a reviewer exit code 1, and was recorded as a
 * passed check (or a skipped one), effective success: a value struck out (GFM strikethrough) is
 * not the value; an inline comment is hidden; an ordered list's item is an item. Where the page
 * names two values (the text after a comment block's `-->` is shown, so a second Exit Code there
 * is one), ledger cannot tell which one the witness returned, and refuses rather than take the
 * passing one.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { kxm } from '../../../src/formats/kxm/index.js';
import { cleanup, gitdir, runCli, tempDir, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const ctx: ParseContext = { repoRoot: '/repo', now: new Date('2026-09-08T12:00:00Z') };
const A = 'export const a = 1;\n';
const SHA = createHash('sha256').update(A).digest('hex');
/** KXM's `docs/templates/handoff.md` view, its witness receipt bullets given. */
const page = (receipt: string): string => `---
schema: "kxm.doc.v1"
id: "HND-0001"
type: "handoff"
title: "Structured Agent / Stage Handoff Manifest"
project: "kxm"
status: "approved"
owner: "@writer"
created: "2026-09-08"
updated: "2026-09-08"
authority: "evidence"
confidence: "verified"
summary: "Formal handoff from writer to reviewer-arch for workflow run-01."
tags: ["handoff"]
related: []
details:
  workflow_run_id: "run-01"
  handoff_manifest_id: "hnd_01"
  intent: "request_review"
---

# Structured Handoff Manifest

## Stage Transition Provenance

- **Workflow Run ID:** \`run-01\`

- **Task ID:** \`task-127\`

- **Intent:** \`request_review\`

## Deliverables & Evidence

### 1. Artifacts Created

- \`artifact:src/a.ts@sha256:${SHA}\`

### 2. Witness Receipt

- **Command:** \`npm run verify\`

${receipt}
`;
function parse(receipt: string) {
  return kxm.parse(new TextEncoder().encode(page(receipt)), ctx);
}
function parsed(receipt: string): ParsedHandoff {
  const r = parse(receipt);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const check = (h: ParsedHandoff) => h.claims.checks?.[0];

const READ_AS_ONE = {
  'a struck-out 0 before it': '- **Exit Code:** ~~`0`~~ `1`',
  'a 0 in an inline comment before it': '- **Exit Code:** <!-- `0` --> `1`',
  'an ordered list’s item': '1. **Exit Code:** `1`',
};

describe('attack: a witness exit code is read as GitHub shows it', () => {
  it.each(Object.entries(READ_AS_ONE))('exit 1 written with %s fails the handoff', (_, receipt) => {
    const h = parsed(receipt);
    expect(check(h)).toMatchObject({ result: 'failed', exitCode: 1 });
    expect(h.status).toBe('failed');
    expect(h.reasons.map((r) => r.code)).toContain('KXM_WITNESS_FAILED');
  });

  it('a struck-out failure corrected to 0 is the 0 GitHub shows', () => {
    expect(check(parsed('- **Exit Code:** ~~`1`~~ `0`'))).toMatchObject({
      result: 'passed',
      exitCode: 0,
    });
    expect(check(parsed('- **Witness passed:** ~~`true`~~ `false`'))).toMatchObject({
      result: 'failed',
    });
  });

  it('two values, in one bullet or in two, are refused: never the passing one taken', () => {
    for (const receipt of [
      '- **Exit Code:** `0` `1`',
      '- **Exit Code:** `1`\n- **Exit Code:** `0`',
      '- **Witness passed:** `true` or `false`',
    ]) {
      const r = parse(receipt);
      expect(r.ok, receipt).toBe(false);
      if (!r.ok) expect(r.problems[0]?.message, receipt).toMatch(/more than one value/);
    }
    // The text after a comment block's `-->` is shown: a second Exit Code beside the first.
    const shown = parse(
      '- **Exit Code:** `0`\n<!-- receipt of the first run, kept for the reviewer\n-->- **Exit Code:** `1`',
    );
    expect(shown.ok).toBe(false);
    if (!shown.ok) expect(shown.problems[0]?.got).toBe('`0`, `1`');
    // The same value twice is one value.
    expect(check(parsed('- **Exit Code:** `0`\n- **Exit Code:** `0`'))?.result).toBe('passed');
  });

  it('through record and verify --strict: each is a failed record, and the gate fails', async () => {
    const repo = gitdir({ files: { 'README.md': 'base\n' } });
    writeFiles(repo, { 'src/a.ts': A });
    for (const receipt of Object.values(READ_AS_ONE)) {
      const doc = join(tempDir(), 'handoff.md');
      writeFileSync(doc, page(receipt));
      const rec = await runCli(['record', '--from', doc, '--format', 'kxm'], repo);
      expect(rec.code, rec.stderr).toBe(0);
      const id = rec.stdout.trim();
      const show = await runCli(['show', id, '--json'], repo);
      expect((JSON.parse(show.stdout) as { effectiveStatus: string }).effectiveStatus).toBe(
        'failed',
      );
      const strict = await runCli(['verify', '--strict', id], repo);
      expect(strict.code, strict.stdout).toBe(1);
    }
  });
});
