/**
 * Auto-detection across all six formats: every fixture that records is recognised as the
 * format whose folder it is in, and nothing that fails to parse crashes detection.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat, emitAs, EMITTERS, formatModule } from '../../src/formats/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import { FORMATS } from '../../src/model/record.js';
import { PROJECT_ROOT } from '../helpers/git.js';

const ROOT = join(PROJECT_ROOT, 'fixtures', 'handoffs');

function fixtures(): { format: string; file: string; outcome: string }[] {
  const out = [];
  for (const format of readdirSync(ROOT)) {
    for (const file of readdirSync(join(ROOT, format))) {
      if (file.endsWith('.expected.json')) continue;
      const expectedFile = join(ROOT, format, file.replace(/\.(json|md)$/, '.expected.json'));
      const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as { outcome: string };
      out.push({ format, file, outcome: expected.outcome });
    }
  }
  return out;
}

describe('format detection', () => {
  const all = fixtures();
  it('has fixtures for every seed format', () => {
    expect(new Set(all.map((f) => f.format))).toEqual(
      new Set(FORMATS.filter((f) => f !== 'ledger')),
    );
  });

  for (const { format, file } of all.filter((f) => f.outcome === 'recorded')) {
    it(`${format}/${file} is detected as ${format}`, () => {
      const bytes = readFileSync(join(ROOT, format, file));
      expect(detectFormat(bytes, file).name).toBe(format);
    });
  }

  it('a ledger-format JSON handoff is detected as ledger', () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ status: 'success', summary: 'x' }));
    expect(detectFormat(bytes, 'handoff.json').name).toBe('ledger');
  });

  it('arbitrary bytes either pick a format or fail with a clean input error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.string(), (bytes, name) => {
        try {
          detectFormat(bytes, name);
        } catch (error) {
          expect(isLedgerError(error, 'INVALID_INPUT')).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('every recorded fixture can be emitted in every shape, with a loss report', () => {
    for (const { format, file } of all.filter((f) => f.outcome === 'recorded')) {
      const bytes = readFileSync(join(ROOT, format, file));
      const parsed = formatModule(format as never).parse(bytes, {
        repoRoot: '/repo',
        fileName: file,
        now: new Date('2026-01-01T00:00:00Z'),
      });
      expect(parsed.ok, `${format}/${file}`).toBe(true);
      if (!parsed.ok) continue;
      const record = {
        schema: 'ledger.record/v1' as const,
        format: format as never,
        claims: parsed.handoff.claims,
        observed: {
          recordedAt: '2026-01-01T00:00:00.000Z',
          ledgerVersion: '0.0.0',
          base: { commit: 'a'.repeat(40), tree: 'b'.repeat(40) },
          candidate: { tree: 'c'.repeat(40) },
          artifacts: [],
          witnesses: [],
          evidence: [],
          effectiveStatus: parsed.handoff.status,
          reasons: parsed.handoff.reasons,
        },
      };
      for (const as of EMITTERS) {
        const emitted = emitAs(as, record);
        expect(emitted.bytes.length, `${format}/${file} as ${as}`).toBeGreaterThan(0);
        expect(Array.isArray(emitted.losses)).toBe(true);
      }
    }
  });
});
