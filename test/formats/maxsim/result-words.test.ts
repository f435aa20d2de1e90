/**
 * What a verification item's words say of its command (verification.ts `resultOf`), on shapes
 * found when GSD-2 summaries refused before for their front matter were first read (corpus round
 * eleven, xbmc/kodiai M027): a tool's own `failed=0` counter was read as a failure, and "❌
 * expected partial failure because … belongs to T05" was not seen as the intended one; both made
 * an honest summary `failed`. A failure said plainly, or a counter above zero, still fails.
 * Written in their shapes (kodiai's text is not ours to keep). In memory.
 */
import { describe, expect, it } from 'vitest';
import { ranCommands, resultOf } from '../../../src/formats/maxsim/verification.js';

const read = (item: string) => resultOf(item, ranCommands(item).spans);

describe('a counter of failures at zero', () => {
  it('is no failure: `failed=0`, `failures: 0`, `errors=0`', () => {
    expect(read('`bun run repair -- --status` → `repair_done`, `repaired=12`, `failed=0`')).toEqual(
      {
        why: 'it names a command but no result (pass, fail, exit code)',
      },
    );
    expect(read('`npm test` → ✅ 12 passed, failures: 0')).toEqual({ result: 'passed' });
    expect(read('`make lint` → ok, errors=0')).toEqual({ result: 'passed' });
  });

  it('above zero, or said plainly, it is still a failure', () => {
    expect(read('`bun run repair -- --status` → `failed=3`')).toEqual({ result: 'failed' });
    expect(read('`npm test` → failures: 2')).toEqual({ result: 'failed' });
    expect(read('`npm test` → failed: 0.5% of runs')).toEqual({ result: 'failed' });
    expect(read('`bun test` ❌ 2 failed')).toEqual({ result: 'failed' });
  });
});

describe('a failure the item calls the expected one', () => {
  it('"❌ expected partial failure because … belongs to T05": unchecked, not a failure', () => {
    expect(
      read(
        '`bun test a.test.ts b.test.ts` ❌ expected partial failure because `b.ts` belongs to T05',
      ),
    ).toEqual({ why: 'its failure is said to be the intended one (a test-first red state)' });
  });

  it('without those words the same item fails', () => {
    expect(read('`bun test a.test.ts b.test.ts` ❌ partial failure: `b.ts` is missing')).toEqual({
      result: 'failed',
    });
  });
});
