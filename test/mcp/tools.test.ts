/**
 * The MCP tools in memory (src/mcp/tools.ts): how a failure that is not the caller's fault is
 * reported, and the compact verify answer built from a verify report.
 */
import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/library.js';
import { callTool, verifySummary } from '../../src/mcp/tools.js';

/** A ledger whose every call fails the way a bug in ledger does. */
const broken = (error: unknown): Ledger =>
  ({
    cwd: '/nowhere',
    record: () => Promise.reject(error),
    verify: () => Promise.reject(error),
    show: () => Promise.reject(error),
    showAs: () => Promise.reject(error),
    log: () => Promise.reject(error),
    logWithNotices: () => Promise.reject(error),
  }) as Ledger;

describe('MCP tools', () => {
  it('an internal error is reported as one: INTERNAL, exit code 4, its first line only, no stack', async () => {
    const error = new TypeError("Cannot read properties of undefined (reading 'tree')");
    error.stack = `${error.message}\n    at sealedStatus (/home/dev/ledger/dist/src/app/record.js:331:9)`;
    for (const [tool, args] of [
      ['verify', {}],
      ['record', { status: 'success' }],
      ['log', {}],
    ] as const) {
      const result = (await callTool(tool, args, { ledger: broken(error), witnesses: [] }))!;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        ok: false,
        exitCode: 4,
        error: {
          code: 'INTERNAL',
          message: expect.stringContaining("reading 'tree'"),
          hint: expect.stringMatching(/bug in ledger/),
        },
      });
      expect(result.content[0]!.text).not.toMatch(/ at |record\.js|\/home\//);
    }
    const thrownString = (await callTool('log', {}, { ledger: broken('x\ny'), witnesses: [] }))!;
    expect(thrownString.structuredContent).toMatchObject({ exitCode: 4 });
    expect(thrownString.content[0]!.text).not.toMatch(/\\ny/);
  });

  it('the compact verify answer keeps only checks that did not verify, and counts them all', () => {
    const check = (id: string, verdict: 'verified' | 'contradicted' | 'stale') => ({
      id,
      check: 'artifact',
      subject: id,
      verdict,
      detail: verdict === 'verified' ? 'same digest' : 'not re-run (use --rerun)',
    });
    const summary = verifySummary({
      ok: false,
      exitCode: 1,
      ledger: [check('chain', 'verified')],
      records: [
        { id: 'sha256:a', verdict: 'verified', checks: [check('a1', 'verified')] },
        {
          id: 'sha256:b',
          task: 'T-2',
          verdict: 'contradicted',
          checks: [check('b1', 'verified'), check('b2', 'contradicted'), check('b3', 'stale')],
        },
      ],
      notes: ['a note'],
    });
    expect(summary).toEqual({
      ok: false,
      exitCode: 1,
      detail: 'summary',
      counts: {
        records: 2,
        byVerdict: { verified: 1, contradicted: 1, unverifiable: 0, stale: 0 },
        checks: { verified: 3, contradicted: 1, unverifiable: 0, stale: 1 },
      },
      ledger: [],
      records: [
        { id: 'sha256:a', verdict: 'verified' },
        {
          id: 'sha256:b',
          task: 'T-2',
          verdict: 'contradicted',
          checks: [
            { ...check('b2', 'contradicted'), detail: 'not re-run (use `rerun`)' },
            { ...check('b3', 'stale'), detail: 'not re-run (use `rerun`)' },
          ],
        },
      ],
      notes: ['a note'],
    });
  });
});
