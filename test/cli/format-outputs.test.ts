/**
 * The formats' own fields in `show --json` and `stats --json` (Mainark's handoffStats and
 * validation, its stats totals) are declared by the format modules now, not by the CLI (issue
 * 20). Moving the declaration must not move a byte of what scripts already parse: the outputs
 * are held to a golden file written before the move (volatile values — ids, object ids, times,
 * temp paths — normalised). Regenerate only for a deliberate, additive change:
 * LEDGER_UPDATE_GOLDEN=1 npx vitest run test/cli/format-outputs.test.ts
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, gitdir, PROJECT_ROOT, runCli } from '../helpers/git.js';

const GOLDEN = join(PROJECT_ROOT, 'test', 'cli', 'golden', 'format-outputs.json');

function normalise(stdout: string, repo: string): unknown {
  const text = stdout
    .split(repo)
    .join('<repo>')
    .replace(/sha256:[0-9a-f]{64}/g, 'sha256:<id>')
    .replace(/\b[0-9a-f]{64}\b/g, '<sha256>')
    .replace(/\b[0-9a-f]{40}\b/g, '<oid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/"durationMs":\s*\d+(\.\d+)?/g, '"durationMs": 0');
  return JSON.parse(text) as unknown;
}

afterAll(cleanup);

describe('show --json and stats --json keep their bytes when formats declare their fields', () => {
  it('a Mainark and a ledger record: show --json of each and stats --json match the golden file', async () => {
    const repo = gitdir({ files: { 'README.md': '# demo\n' } });
    const partial = join(repo, 'handoff-MAI-36.partial.json');
    copyFileSync(
      join(PROJECT_ROOT, 'fixtures', 'handoffs', 'mainark', 'handoff-MAI-36.partial.json'),
      partial,
    );
    const ledgerHandoff = join(repo, 'handoff.json');
    writeFileSync(
      ledgerHandoff,
      JSON.stringify({
        status: 'success',
        task: 'T-1',
        summary: 'readme',
        artifacts: [{ path: 'README.md', action: 'created' }],
      }),
    );
    const outputs: Record<string, unknown> = {};
    for (const [name, from] of [
      ['mainark', partial],
      ['ledger', ledgerHandoff],
    ] as const) {
      const recorded = await runCli(['record', '--from', from, '--json'], repo);
      expect(recorded.code, recorded.stdout).toBe(0);
      const { id } = JSON.parse(recorded.stdout) as { id: string };
      const shown = await runCli(['show', id, '--json'], repo);
      expect(shown.code, shown.stderr).toBe(0);
      outputs[`show ${name}`] = normalise(shown.stdout, repo);
    }
    const stats = await runCli(['stats', '--json'], repo);
    expect(stats.code, stats.stderr).toBe(0);
    outputs['stats'] = normalise(stats.stdout, repo);
    if (process.env['LEDGER_UPDATE_GOLDEN'] === '1' || !existsSync(GOLDEN))
      writeFileSync(GOLDEN, `${JSON.stringify(outputs, null, 2)}\n`);
    expect(outputs).toEqual(JSON.parse(readFileSync(GOLDEN, 'utf8')));
  });
});
