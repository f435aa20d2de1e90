/**
 * The typed library as a user gets it: `npm pack`, installed by name into a new project, used
 * from an .mjs file and type-checked from a .ts file against the published declarations.
 *
 * Needs the build (`npm test` builds first). npm runs with this test's own HOME, the machine's
 * npm cache (where `npm ci` left every dependency) and `--prefer-offline`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, gitdir, PROJECT_ROOT, tempDir } from '../helpers/git.js';

afterAll(cleanup);

let project: string;

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_cache: process.env['npm_config_cache'] ?? join(userInfo().homedir, '.npm'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

beforeAll(() => {
  const packs = tempDir('ledger-pack-');
  // --ignore-scripts: `prepare` would rebuild; the test runs against the build `npm test` made.
  npm(['pack', '--ignore-scripts', '--pack-destination', packs], PROJECT_ROOT);
  const [tarball] = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  project = tempDir('ledger-consumer-');
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  npm(['install', '--prefer-offline', '--ignore-scripts', join(packs, tarball!)], project);
  // The library must need neither the CLI framework nor the MCP SDK: remove both.
  rmSync(join(project, 'node_modules', '@oclif'), { recursive: true, force: true });
  rmSync(join(project, 'node_modules', '@modelcontextprotocol'), { recursive: true, force: true });
}, 180_000);

describe("import { openLedger } from 'handoff-ledger'", () => {
  it('records, verifies, shows and logs from an .mjs file, with the CLI’s error codes', () => {
    const repo = gitdir();
    writeFileSync(
      join(project, 'use.mjs'),
      `import { openLedger, LedgerError, EXIT } from 'handoff-ledger';
const ledger = openLedger({ cwd: process.argv[2] });
const recorded = await ledger.record({
  handoff: JSON.stringify({ status: 'success', summary: 'from the library', task: 'L-1' }),
  witnesses: ['test -f src/app.ts'],
});
const lying = await ledger.record({ status: 'success', task: 'L-2', witnesses: ['exit 4'] });
const all = await ledger.verify();
const shown = await ledger.show({ latest: 'L-1' });
const asMaxsim = await ledger.showAs(recorded.id, 'maxsim');
const log = await ledger.log({ limit: 5 });
const errors = [];
for (const attempt of [() => ledger.show('sha256:0000'), () => ledger.record({ status: 'great' })]) {
  try { await attempt(); } catch (e) {
    errors.push({ instance: e instanceof LedgerError, code: e.code, exitCode: e.exitCode, paths: e.problems.map((p) => p.path) });
  }
}
console.log(JSON.stringify({ recorded, lying, all, shown, asMaxsim, log, errors, usage: EXIT.usage }));
`,
    );
    const run = spawnSync(process.execPath, ['use.mjs', repo], { cwd: project, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.recorded).toMatchObject({
      ok: true,
      format: 'ledger',
      effectiveStatus: 'success',
      witnesses: [{ command: 'test -f src/app.ts', exitCode: 0 }],
    });
    expect(out.lying).toMatchObject({ claimedStatus: 'success', effectiveStatus: 'failed' });
    // verify's result is verify --json's: a contradicted claim is exit code 1, not a throw.
    expect(out.all).toMatchObject({ ok: false, exitCode: 1 });
    expect(out.all.records.find((r: any) => r.id === out.lying.id).checks).toContainEqual(
      expect.objectContaining({ check: 'status', verdict: 'contradicted' }),
    );
    expect(out.shown).toMatchObject({
      id: out.recorded.id,
      claims: { summary: 'from the library' },
    });
    expect(out.asMaxsim).toMatchObject({ id: out.recorded.id, format: 'maxsim', original: false });
    expect(out.log.map((i: any) => i.id)).toEqual([out.lying.id, out.recorded.id]);
    expect(out.errors).toEqual([
      { instance: true, code: 'UNKNOWN_RECORD', exitCode: 2, paths: [] },
      { instance: true, code: 'INVALID_INPUT', exitCode: 2, paths: ['status'] },
    ]);
    expect(out.usage).toBe(2);
  });

  it("require('handoff-ledger') works where Node can require an ES module, and says what to do where it cannot", () => {
    writeFileSync(
      join(project, 'use.cjs'),
      `const { openLedger, STATUSES, LedgerError } = require('handoff-ledger');
console.log(JSON.stringify({ openLedger: typeof openLedger, LedgerError: typeof LedgerError, STATUSES }));
`,
    );
    const run = spawnSync(process.execPath, ['use.cjs'], { cwd: project, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      openLedger: 'function',
      LedgerError: 'function',
      STATUSES: ['success', 'partial', 'blocked', 'failed'],
    });
    const inline = spawnSync(
      process.execPath,
      ['-e', "process.stdout.write(typeof require('handoff-ledger').openLedger)"],
      { cwd: project, encoding: 'utf8' },
    );
    expect(inline.stdout).toBe('function');
    // A Node that cannot require() an ES module (older than 20.19, or with the feature off).
    const old = spawnSync(process.execPath, ['--no-experimental-require-module', 'use.cjs'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(old.status).toBe(1);
    expect(old.stderr).toMatch(/handoff-ledger is an ES module/);
    expect(old.stderr).toMatch(/use import\(\)/);
    expect(old.stderr).toMatch(/Node ≥ 20\.19/);
  });

  it('type-checks a .ts file against the published declarations', () => {
    writeFileSync(
      join(project, 'use.ts'),
      `import { openLedger, LedgerError, type RecordJson, type VerifyJson, type LedgerRecord } from 'handoff-ledger';
const ledger = openLedger({ cwd: '.' });
const recorded: RecordJson = await ledger.record({ status: 'success', artifacts: ['a.txt'] });
const report: VerifyJson = await ledger.verify({ ids: [recorded.id], strict: true });
const code: 0 | 1 | 3 = report.exitCode;
const claims: LedgerRecord['claims'] = (await ledger.show(recorded.id)).claims;
const status: string = claims.status;
// @ts-expect-error a status is a string
await ledger.record({ status: 1 });
// @ts-expect-error verify has no such option
await ledger.verify({ rerunAll: true });
// @ts-expect-error not a format
await ledger.showAs(recorded.id, 'yaml');
// @ts-expect-error a status is one of the ledger's four words, not any string
await ledger.record({ status: 'done' });
const shown = await ledger.show({ latest: 'T-1' });
const claimsCount: number | undefined = shown.handoffStats?.claims_count;
const state: string | undefined = shown.lifecycle?.state;
// @ts-expect-error ShowJson has no catch-all key: a misspelt field does not compile
const misspelt = shown.handoffstats;
export const used = [code, status, LedgerError, claimsCount, state, misspelt];
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          // The published .d.ts files are checked too, not only this file's use of them.
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(PROJECT_ROOT, 'node_modules', '@types')],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'],
      { cwd: project, encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });
});
