/**
 * The honest MaxsimCLI summary the self-check tests append a self-check to, and its parse: one
 * created file, front matter `status: complete`, the self-check where executors append it.
 */
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';

const ctx: ParseContext = {
  repoRoot: '/home/dev/project',
  now: new Date('2026-05-03T10:00:00Z'),
};

/** An honest summary of one created file, `selfCheck` appended where executors append it. */
export const summary = (selfCheck: string): string =>
  [
    '---',
    'phase: 06-ui',
    'plan: 01',
    'subsystem: ui',
    'key-files:',
    '  created:',
    '    - src/a.ts',
    'status: complete',
    '---',
    '',
    '# Phase 06 Plan 01: Widget Summary',
    '',
    '**A widget module.**',
    '',
    '## Files Created/Modified',
    '',
    '- `src/a.ts` - the module',
    '',
    selfCheck,
    '',
  ].join('\n');

/** The document line `selfCheck`'s first line lands on. */
export const SELF_CHECK_LINE = 19;

export function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: '06-01-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
