/**
 * Issue 20, GSD-2: task and milestone summaries (`id: T04`, `parent`, `milestone`), and the plans
 * beside them, through record and verify. Real documents from test/formats/corpus/docs/gsd2
 * (BotTech/gitignorer @168e620, JimAKennedy/poly @b971e7d; see gsd.json). Before, a GSD-2 summary
 * was refused with "no handoff-contract section found" and no line; a plan handed over by
 * mistake was refused the same way, without saying what it seemed to be or what it was read as.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import { LedgerError } from '../../../src/model/errors.js';
import type { FormatName } from '../../../src/model/record.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const DIR = join(PROJECT_ROOT, 'test', 'formats', 'corpus', 'docs', 'gsd2');
const FORMATTERS = ['human', 'json', 'ndjson', 'dry-run'].map((f) => `src/formatters/${f}.ts`);

async function verdictsOn(file: string, name: string, base: Record<string, string>) {
  const repo = gitdir({ files: { 'README.md': 'x\n', ...base } });
  const head = git(repo, 'rev-parse', 'HEAD');
  writeFiles(repo, Object.fromEntries(FORMATTERS.map((p) => [p, 'export {};\n'])));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'feat(01-04): output formatters');
  const bytes = readFileSync(join(DIR, file));
  await recordHandoff({ cwd: repo, base: head, from: { bytes, fileName: name } });
  const report = await verifyRepository({ cwd: repo });
  const checks = report.records[0]!.checks;
  const status = checks.find((c) => c.check === 'status');
  // Its file verdicts, then its status verdict and the exit code: an honest summary that says
  // PASS must verify with exit 0.
  return [
    ...checks
      .filter((c) => ['claim.artifact', 'claim.unverifiable'].includes(c.check))
      .map((c) => `${c.subject} ${c.verdict}`)
      .sort(),
    `status ${status?.subject} ${status?.verdict}`,
    `exit ${report.exitCode}`,
  ];
}

/** The problems `record` refuses a file with, as one text. */
async function refusal(file: string, name: string, format?: FormatName): Promise<string> {
  const repo = gitdir({ files: { 'README.md': 'x\n' } });
  const bytes = readFileSync(join(DIR, '..', file));
  try {
    await recordHandoff({
      cwd: repo,
      from: { bytes, fileName: name },
      ...(format === undefined ? {} : { format }),
    });
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return error.problems.map((p) => `${p.path}: ${p.message}`).join('\n');
  }
  throw new Error(`${file} was recorded`);
}

describe('GSD-2 summaries and plans, through record and verify', () => {
  it('the issue’s T04 summary: four comma-separated paths are four created claims, the description line unverifiable; one created file already in the base is contradicted', async () => {
    const file = 'gitignorer-M001-S01-T04-embedded-plan-summary.md';
    const honest = await verdictsOn(file, 'T04-SUMMARY.md', {});
    expect(honest).toEqual(
      [
        ...FORMATTERS.map((p) => `${p} verified`),
        'Created: All 8 command files updated to use formatHuman unverifiable',
      ]
        .sort()
        .concat('status PASS verified', 'exit 0'),
    );
    const lie = await verdictsOn(file, 'T04-SUMMARY.md', {
      'src/formatters/json.ts': '// old\n',
    });
    expect(lie.filter((v) => v.endsWith('contradicted'))).toEqual([
      'src/formatters/json.ts contradicted',
    ]);
    expect(lie.slice(-1)).toEqual(['exit 1']);
  });

  it('a GSD plan handed over with --format maxsim: refused saying what it was read as and why, and that it looks like a plan', async () => {
    const said = await refusal('gsd2/gitignorer-01-04-PLAN.md', '01-04-PLAN.md', 'maxsim');
    expect(said).toMatch(
      /^from: read as MaxsimCLI handoff contract \(maxsim\) because --format maxsim was given/,
    );
    expect(said).toContain('this looks like a GSD plan (01-04-PLAN.md: it has <tasks>');
    expect(said).toContain('no handoff-contract section found');
  });

  it('a GSD-2 task plan without --format: taken for no format, and the refusal says it looks like a plan', async () => {
    const said = await refusal('gsd2/gitignorer-M001-S01-T04-PLAN.md', 'T04-PLAN.md');
    expect(said).toMatch(/could not tell which handoff format T04-PLAN\.md is in/);
    expect(said).toContain('It looks like a GSD plan (T04-PLAN.md');
  });

  it('a quick-task plan detected as a summary: the refusal names the detection, its confidence and signals, then what the file seems to be and the line', async () => {
    const said = await refusal('gsd/quick-260412-ahe-plan-status-ready.md', '260412-ahe-PLAN.md');
    expect(said).toMatch(
      /^from: read as MaxsimCLI handoff contract \(maxsim\) by detection, at confidence 0\.70 on a MaxsimCLI phase SUMMARY/,
    );
    expect(said).toContain('this looks like a GSD quick-task plan');
    expect(said).toContain('front matter line 4: status is not a status word');
  });
});
