/**
 * Formats declare what they add to `show --json` and `stats --json` (issue 20): the CLI's
 * published schemas fold those declarations over the registry, so a view a module returns
 * must be exactly what it declares, or the published schema would describe another answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ShowOutput, StatsOutput } from '../../src/cli/json/outputs.js';
import {
  formatModules,
  formatStatsSchemas,
  formatViewSchemas,
  type FormatModule,
} from '../../src/formats/index.js';
import { recordOf } from './helpers.js';

const ROOT = resolve(__dirname, '../..');
const context = { repoRoot: '/repo', now: new Date('2026-03-07T10:00:00Z') };

/** Every fixture of the format, parsed, as a record with no evidence and with one log. */
function samples(
  module: FormatModule,
): { record: ReturnType<typeof recordOf>; source: Uint8Array }[] {
  const dir = join(ROOT, 'fixtures', 'handoffs', module.name);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => !n.includes('.expected.'));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const source = new Uint8Array(readFileSync(join(dir, name)));
    const parsed = module.parse(source, { ...context, fileName: name });
    if (!parsed.ok) return [];
    const log = { sha256: 'e'.repeat(64), size: 3, blob: 'e'.repeat(40) };
    return [
      { record: recordOf(parsed.handoff, module.name), source },
      {
        record: recordOf(parsed.handoff, module.name, {
          evidence: [{ name: 'validation.log', file: log }],
        }),
        source,
      },
    ];
  });
}

describe('formats declare their show --json and stats --json fields', () => {
  it('every view a module returns is a key it declares, and its value parses (strictly) as declared', () => {
    let checked = 0;
    for (const module of formatModules()) {
      if (module.views === undefined) continue;
      for (const { record, source } of samples(module)) {
        for (const kept of [source, undefined]) {
          const views = module.views.of(record, kept);
          expect(Object.keys(views).sort()).toEqual(Object.keys(module.views.schemas).sort());
          for (const [key, value] of Object.entries(views)) {
            const schema = module.views.schemas[key]!;
            // parse drops keys the schema does not name: equal means nothing undeclared.
            expect(schema.parse(value), `${module.name} ${key}`).toEqual(value);
            expect(schema.description, `${key} is described`).toBeTruthy();
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("every module's stats totals, empty and after each sample, parse as its declared schema", () => {
    let checked = 0;
    for (const module of formatModules()) {
      if (module.stats === undefined) continue;
      const totals = module.stats.empty();
      expect(module.stats.schema.safeParse(totals).success).toBe(true);
      for (const { record, source } of samples(module)) {
        module.stats.add(totals, { id: `sha256:${'f'.repeat(64)}`, record }, source);
        const printed: unknown = JSON.parse(JSON.stringify(totals));
        expect(module.stats.schema.parse(printed)).toEqual(printed);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("the CLI's show and stats schemas are the folds of the registry: every declared key, nothing hard-coded", () => {
    const shown = ShowOutput.options[0].shape as Record<string, z.ZodType>;
    for (const key of Object.keys(formatViewSchemas() as Record<string, unknown>))
      expect(shown[key]?.safeParse(undefined).success, `${key} is optional`).toBe(true);
    const stats = StatsOutput.shape as Record<string, z.ZodType>;
    for (const [key, schema] of Object.entries(formatStatsSchemas()))
      expect(stats[key]).toBe(schema);
  });
});
