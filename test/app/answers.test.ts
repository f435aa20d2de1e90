/**
 * One declaration per answer (issue 22): the TypeScript types of the JSON answers
 * (`src/app/views.ts`) are inferred from the zod schemas the published JSON Schemas are made
 * from. The types can then not drift from the schemas; this holds the values to them: what the
 * library returns (the same objects the CLI prints) matches the closed published schema.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/library.js';
import { cleanup, gitdir, PROJECT_ROOT } from '../helpers/git.js';
import { jsonOutputProblems } from '../helpers/json-output.js';

afterAll(cleanup);

const problems = (command: string, value: unknown): string[] =>
  jsonOutputProblems(PROJECT_ROOT, [...command.split(' '), '--json'], JSON.stringify(value));

describe('the JSON answers match their one declaration', () => {
  it('record, verify, show and show --as answers from the library match the closed schemas', async () => {
    const repo = gitdir({ files: { 'src/app.ts': 'export const a = 1;\n' } });
    writeFileSync(join(repo, 'partial.json'), '{"claims": ["src/app.ts exports a"]}');
    const ledger = openLedger(repo);
    const recorded = await ledger.record({
      handoff: JSON.stringify({ status: 'success', summary: 'answers', task: 'A-1' }),
      witnesses: ['test -f src/app.ts'],
    });
    const mainark = await ledger.record({
      from: 'partial.json',
      fileName: 'handoff-MAI-9.partial.json',
      format: 'mainark',
    });
    const verified = await ledger.verify();
    expect(verified.records.flatMap((r) => r.checks).every((c) => c.id !== '')).toBe(true);
    expect([
      ...problems('record', recorded),
      ...problems('record', mainark),
      ...problems('verify', verified),
      ...problems('show', await ledger.show(recorded.id)),
      ...problems('show', await ledger.show(mainark.id)),
      ...problems('show', await ledger.showAs(recorded.id, 'team')),
    ]).toEqual([]);
    // Every check has an id (verify/types.ts); the schema said optional and let a check without
    // one pass, while the TypeScript type said required. The schema now says what is true.
    const withoutId = structuredClone(verified);
    delete (withoutId.records[0]!.checks[0] as { id?: string }).id;
    expect(problems('verify', withoutId).join('\n')).toMatch(/required property 'id'/);
  });
  it('log items from the library (typed from the log schema) match the closed schema', async () => {
    const repo = gitdir({ files: { 'src/app.ts': 'export const a = 1;\n' } });
    const ledger = openLedger(repo);
    // No task, run or summary: the fields an item leaves out must be absent, not null.
    await ledger.record({ handoff: JSON.stringify({ status: 'success' }) });
    await ledger.record({
      handoff: JSON.stringify({ status: 'success', summary: 'log', task: 'L-1', run: 'r1' }),
    });
    const items = await ledger.log();
    expect(items).toHaveLength(2);
    expect(problems('log', items)).toEqual([]);
  });
});
