/**
 * Commands a verification item names that start with a runner the reader did not know (`bunx`)
 * or with environment assignments (`TEST_DATABASE_URL='' bun test`) were neither claimed checks
 * nor unchecked items: dropped without a word, so a `bunx tsc --noEmit` → 3 errors ✗ under
 * `verification_result: passed` recorded success (issue 20, corpus round ten: the shape of
 * xbmc/kodiai's GSD-2 summary M026/S02/T03). Parsed in memory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { ranCommands } from '../../../src/formats/maxsim/verification.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
function parsed(bytes: Uint8Array, fileName: string): ParsedHandoff {
  const r = maxsim.parse(bytes, { ...ctx, fileName });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const checksOf = (h: ParsedHandoff) =>
  (h.claims.checks ?? []).map((c) => [c.command ?? null, c.result, c.details?.split(':')[0]]);

describe('a verification command behind bunx or environment assignments', () => {
  it('the fixture, honest: its bunx and env-prefixed commands are claimed checks, success', () => {
    const file = 'gsd2-bunx-check-failed.md';
    const text = readFileSync(join(PROJECT_ROOT, 'fixtures/handoffs/maxsim', file), 'utf8');
    const h = parsed(
      new TextEncoder().encode(text.replace('→ 3 errors ✗', '→ 0 errors ✓')),
      'T03-SUMMARY.md',
    );
    expect(checksOf(h)).toEqual([
      ['bunx tsc --noEmit', 'passed', 'line 24'],
      ["TEST_DATABASE_URL='' bun test src/lib/pricing.test.ts", 'passed', 'line 25'],
    ]);
    expect(h.status).toBe('success');
  });

  it('the fixture: a failing bunx check under verification_result: passed fails the summary', () => {
    const file = 'gsd2-bunx-check-failed.md';
    const h = parsed(readFileSync(join(PROJECT_ROOT, 'fixtures/handoffs/maxsim', file)), file);
    expect(checksOf(h)).toEqual([
      ['bunx tsc --noEmit', 'failed', 'line 24'],
      ["TEST_DATABASE_URL='' bun test src/lib/pricing.test.ts", 'passed', 'line 25'],
    ]);
    expect(h.status).toBe('failed');
  });

  it('an assignment is a prefix only before a runner; a lone assignment or a path is no command', () => {
    const spans = (s: string) => ranCommands(s).commands;
    expect(spans('`CI=1 FOO="a b" npm test`')).toEqual(['CI=1 FOO="a b" npm test']);
    expect(spans('`NODE_ENV=production`')).toEqual([]);
    expect(spans('`DEBUG=1 src/main.ts`')).toEqual([]);
    expect(spans('`bunx eslint .` on `src/a.ts`')).toEqual(['bunx eslint .']);
  });
});
