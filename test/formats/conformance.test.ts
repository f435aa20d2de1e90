/**
 * One test over every module and every fixture: each module fulfils the contract on every
 * input it meets. For every fixture in fixtures/handoffs/<format>/, the module of that folder
 * records it or refuses it exactly as its .expected.json says, detection picks that module for
 * every recorded fixture (and says why), and every module — not only the fixture's own — either
 * parses it or refuses it with located problems, never by throwing. Every emitter renders every
 * recorded fixture, names its losses as field paths, and its own module's rendering reads back.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  detectFormat,
  emitAs,
  emitterNames,
  EMITTER_NAMES,
  formatModule,
  formatModules,
  type ParseContext,
} from '../../src/formats/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import { Claims, FORMATS, Reason, type FormatName } from '../../src/model/record.js';
import { PROJECT_ROOT } from '../helpers/git.js';
import { recordOf } from './helpers.js';

const ROOT = join(PROJECT_ROOT, 'fixtures', 'handoffs');
const ctx = (fileName: string): ParseContext => ({
  repoRoot: '/home/dev/project',
  fileName,
  now: new Date('2026-03-07T10:00:00Z'),
});

interface Fixture {
  format: FormatName;
  file: string;
  bytes: Uint8Array;
  expected: {
    outcome: 'recorded' | 'refused';
    status?: string;
    reasonCodes?: string[];
    problemPaths?: string[];
  };
}

function fixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const format of readdirSync(ROOT).sort()) {
    for (const file of readdirSync(join(ROOT, format)).sort()) {
      if (file.endsWith('.expected.json')) continue;
      out.push({
        format: format as FormatName,
        file,
        bytes: readFileSync(join(ROOT, format, file)),
        expected: JSON.parse(
          readFileSync(join(ROOT, format, file.replace(/\.(json|md)$/, '.expected.json')), 'utf8'),
        ),
      });
    }
  }
  return out;
}

const ALL = fixtures();

describe('the registry', () => {
  it('has exactly one module per stored format name, and emitters with unique names', () => {
    expect(
      formatModules()
        .map((m) => m.name)
        .sort(),
    ).toEqual([...FORMATS].sort());
    const names = emitterNames();
    expect(new Set(names).size).toBe(names.length);
    // In order: `show`'s help lists the zod-free list (src/formats/shapes.ts) as the modules do.
    expect([...EMITTER_NAMES]).toEqual(names);
    for (const m of formatModules()) expect(m.emitters[0]?.name).toBe(m.name);
  });
  it('has fixtures for every format with a file shape', () => {
    expect(new Set(ALL.map((f) => f.format))).toEqual(
      new Set(FORMATS.filter((f) => f !== 'ledger')),
    );
  });
  it('every module declares the reason codes it gives, and gives no other', () => {
    for (const f of ALL) {
      const r = formatModule(f.format).parse(f.bytes, ctx(f.file));
      if (!r.ok) continue;
      for (const reason of r.handoff.reasons)
        expect(Object.keys(formatModule(f.format).reasonCodes), `${f.format}/${f.file}`).toContain(
          reason.code,
        );
    }
  });
});

for (const f of ALL) {
  describe(`${f.format}/${f.file}`, () => {
    it(`its own module ${f.expected.outcome === 'recorded' ? `records it as ${f.expected.status}` : 'refuses it'}`, () => {
      const r = formatModule(f.format).parse(f.bytes, ctx(f.file));
      if (f.expected.outcome === 'refused') {
        expect(r.ok).toBe(false);
        if (!r.ok)
          expect([...new Set(r.problems.map((p) => p.path))].sort()).toEqual(
            [...(f.expected.problemPaths ?? [])].sort(),
          );
        return;
      }
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect(r.handoff.status).toBe(f.expected.status);
      expect([...new Set(r.handoff.reasons.map((x) => x.code))].sort()).toEqual(
        [...new Set(f.expected.reasonCodes ?? [])].sort(),
      );
      expect(Claims.safeParse(r.handoff.claims).success).toBe(true);
      for (const reason of r.handoff.reasons) expect(Reason.safeParse(reason).success).toBe(true);
      // Deterministic given (bytes, context): verify re-parses the kept bytes and must agree.
      expect(formatModule(f.format).parse(f.bytes, ctx(f.file))).toEqual(r);
    });

    if (f.expected.outcome === 'recorded')
      it('detection picks its module, and says why', () => {
        const detected = detectFormat(f.bytes, f.file);
        expect(detected.module.name, JSON.stringify(detected.ranking)).toBe(f.format);
        expect(detected.signals.length).toBeGreaterThan(0);
      });

    it('every module parses it or refuses it with located problems, never throwing', () => {
      for (const m of formatModules()) {
        const r = m.parse(f.bytes, ctx(f.file));
        if (!r.ok) {
          expect(r.problems.length, m.name).toBeGreaterThan(0);
          for (const p of r.problems) expect(typeof p.path).toBe('string');
        } else expect(Claims.safeParse(r.handoff.claims).success, m.name).toBe(true);
      }
    });

    if (f.expected.outcome === 'recorded')
      it('every emitter renders it, naming losses as field paths; its own shape reads back', () => {
        const r = formatModule(f.format).parse(f.bytes, ctx(f.file));
        if (!r.ok) throw new Error('recorded fixture');
        const record = recordOf(r.handoff, f.format, {
          input: { root: '/home/dev/project', fileName: f.file },
        });
        for (const name of emitterNames()) {
          const out = emitAs(name, record);
          expect(out.bytes.length, name).toBeGreaterThan(0);
          for (const loss of out.losses)
            expect(loss, name).toMatch(/^(claims|observed|verificationEvidence)\b/);
        }
        const own = emitAs(f.format, record);
        const back = formatModule(f.format).parse(own.bytes, ctx(own.fileName ?? f.file));
        expect(back.ok, JSON.stringify(!back.ok && back.problems)).toBe(true);
      });
  });
}

describe('detection on arbitrary input', () => {
  it('picks a format or fails with a clean input error that says what each module saw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.string(), (bytes, name) => {
        try {
          detectFormat(bytes, name);
        } catch (error) {
          expect(isLedgerError(error, 'INVALID_INPUT')).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
  it('a ledger-format JSON handoff is detected as ledger', () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ status: 'success', summary: 'x' }));
    expect(detectFormat(bytes, 'handoff.json').module.name).toBe('ledger');
  });
});
