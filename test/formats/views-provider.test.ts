/**
 * `show` takes a record's format views from src/formats/views.ts instead of the registry (no
 * format parser, no yaml, no zod on its path; issue 21). They must be the registry's views, not
 * a second copy that could drift: each entry is the very function its module carries as
 * `views.of`, and on every fixture of every format the two ways give the same keys and values.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatModule, formatModules, recordModule } from '../../src/formats/index.js';
import { FORMAT_VIEWS, formatViewsOf } from '../../src/formats/views.js';
import { LIFECYCLE_FORMAT, type FormatName, type LedgerRecord } from '../../src/model/record.js';
import { PROJECT_ROOT } from '../helpers/git.js';
import { recordOf } from './helpers.js';

const ROOT = join(PROJECT_ROOT, 'fixtures', 'handoffs');

/** Every fixture a module records, as a record of its format, with its bytes. */
function fixtureRecords(): { name: string; record: LedgerRecord; bytes: Uint8Array }[] {
  const out: { name: string; record: LedgerRecord; bytes: Uint8Array }[] = [];
  for (const format of readdirSync(ROOT).sort() as FormatName[])
    for (const file of readdirSync(join(ROOT, format)).sort()) {
      if (file.endsWith('.expected.json')) continue;
      const bytes = readFileSync(join(ROOT, format, file));
      const parsed = formatModule(format).parse(bytes, {
        repoRoot: '/home/dev/project',
        fileName: file,
        now: new Date('2026-03-07T10:00:00Z'),
      });
      if (parsed.ok)
        out.push({ name: `${format}/${file}`, record: recordOf(parsed.handoff, format), bytes });
    }
  return out;
}

describe('the format views outside the registry', () => {
  it('are the views.of of each registry module, by identity, and no others', () => {
    for (const m of formatModules()) expect(FORMAT_VIEWS.get(m.name), m.name).toBe(m.views?.of);
    expect([...FORMAT_VIEWS.keys()].sort()).toEqual(
      formatModules()
        .filter((m) => m.views !== undefined)
        .map((m) => m.name)
        .sort(),
    );
  });

  it('give what the registry gives on every recorded fixture, with and without its bytes', () => {
    const records = fixtureRecords();
    expect(new Set(records.map((r) => r.record.format)).size).toBe(5); // every fixture format
    for (const { name, record, bytes } of records)
      for (const source of [bytes, undefined]) {
        const registry = { ...(recordModule(record).views?.of(record, source) ?? {}) };
        expect(formatViewsOf(record, source), name).toEqual(registry);
      }
  });

  it('follow the module that defines the lifecycle for a lifecycle step, as recordModule does', () => {
    const { record } = fixtureRecords()[0]!;
    const step = { ...record, format: LIFECYCLE_FORMAT } as LedgerRecord;
    const registry = { ...(recordModule(step).views?.of(step, undefined) ?? {}) };
    expect(formatViewsOf(step, undefined)).toEqual(registry);
    // And a Mainark record's keys come through (the one format with views today).
    const mainark = fixtureRecords().find((r) => r.record.format === 'mainark')!;
    expect(Object.keys(formatViewsOf(mainark.record, mainark.bytes)).sort()).toEqual([
      'handoffStats',
      'validation',
    ]);
  });
});
