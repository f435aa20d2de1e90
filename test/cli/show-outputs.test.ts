/**
 * `show` without `--as` reads a record's format views and lifecycle without the format registry
 * (issue 21). Its answers must not move a byte: `show ID` and `show ID --json` of a record of
 * every format (a KXM manifest and page, a Mainark partial with and without a validation log and
 * a run that left none, a MaxsimCLI summary, a team result, a structured handoff, the ledger's
 * own from flags and from a file, a lifecycle step and the handoff it accepted) are held to a
 * golden file written by the build before the change, which took the views from the registry
 * (volatile values — ids, object ids, times, temp paths — normalised). Regenerate only for a
 * deliberate change: LEDGER_UPDATE_GOLDEN=1 npx vitest run test/cli/show-outputs.test.ts
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cleanup, gitdir, PROJECT_ROOT } from '../helpers/git.js';

const GOLDEN = join(PROJECT_ROOT, 'test', 'cli', 'golden', 'show-outputs.json');
const FIXTURES = join(PROJECT_ROOT, 'fixtures', 'handoffs');

function normalise(stdout: string, repo: string): string {
  return stdout
    .split(repo)
    .join('<repo>')
    .replace(/sha256:[0-9a-f]{64}/g, 'sha256:<id>')
    .replace(/\b[0-9a-f]{64}\b/g, '<sha256>')
    .replace(/\b[0-9a-f]{40}\b/g, '<oid>')
    .replace(/\b[0-9a-f]{12}\b/g, '<short>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/INS-\d{14}-/g, 'INS-<time>-') // a team insight's id carries the record time
    .replace(/"durationMs":\s*\d+(\.\d+)?/g, '"durationMs": 0');
}

afterAll(cleanup);

describe('show answers the same bytes without the format registry (issue 21)', () => {
  it('show and show --json of a record of every format match the golden file', async () => {
    const repo = gitdir({ files: { 'README.md': '# demo\n', 'validate.log': 'ok\n' } });
    const copy = (format: string, file: string, as = file): string => {
      copyFileSync(join(FIXTURES, format, file), join(repo, as));
      return join(repo, as);
    };
    writeFileSync(
      join(repo, 'handoff.json'),
      JSON.stringify({ status: 'success', task: 'T-1', summary: 'readme' }),
    );
    const records: [string, string[]][] = [
      ['kxm manifest', ['--from', copy('kxm', 'accepted-minimal.json'), '--format', 'kxm']],
      ['kxm page', ['--from', copy('kxm', 'seed-template-filled.md'), '--format', 'kxm']],
      ['mainark', ['--from', copy('mainark', 'handoff-MAI-36.partial.json')]],
      [
        'mainark with a log',
        [
          '--from',
          copy('mainark', 'handoff-MAI-41.partial.json'),
          '--evidence',
          'validate=validate.log',
        ],
      ],
      ['mainark without a partial', ['--format', 'mainark', '--task', 'MAI-9']],
      ['maxsim', ['--from', copy('maxsim', 'pass-with-evidence-blocks.md'), '--format', 'maxsim']],
      ['team', ['--from', copy('team', 'english-result-with-insights.md'), '--format', 'team']],
      [
        'structured',
        ['--from', copy('structured', 'completed-markdown.md'), '--format', 'structured'],
      ],
      ['ledger from a file', ['--from', join(repo, 'handoff.json')]],
      ['ledger from flags', ['--status', 'partial', '--summary', 'flags']],
    ];
    const ids: Record<string, string> = {};
    for (const [name, args] of records) {
      const r = await runBinInProcess(['record', ...args, '--json'], repo);
      expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(0);
      ids[name] = (JSON.parse(r.stdout) as { id: string }).id;
    }
    const step = await runBinInProcess(['accept', ids['ledger from a file']!, '--json'], repo);
    expect(step.code, step.stderr).toBe(0);
    ids['lifecycle step'] = (JSON.parse(step.stdout) as { id: string }).id;

    const outputs: Record<string, string> = {};
    const shows = Object.entries(ids).flatMap(([name, id]) => [
      [`${name}: show`, ['show', id]],
      [`${name}: show --json`, ['show', id, '--json']],
    ]);
    // In this process, routed as bin/run.js routes it (its show fast path included): the
    // process around it is test/cli/startup.test.ts's and fast-path.test.ts's to pin.
    for (const [key, args] of shows) {
      const r = await runBinInProcess(args as string[], repo);
      expect(r.code, `${key as string}: ${r.stderr}`).toBe(0);
      outputs[key as string] = normalise(r.stdout, repo);
    }
    if (process.env['LEDGER_UPDATE_GOLDEN'] === '1' || !existsSync(GOLDEN))
      writeFileSync(GOLDEN, `${JSON.stringify(outputs, null, 2)}\n`);
    expect(outputs).toEqual(JSON.parse(readFileSync(GOLDEN, 'utf8')));
  }, 300_000);
});
