import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layers of src/ are a lint rule (eslint.boundaries.js), not prose: an import that runs
// against a folder's rule must fail `npm run lint`. Each case lints a file as if it lived in
// the folder named, importing real modules, so the rule sees what it would see in the tree.
const eslint = new ESLint({ cwd: process.cwd() });

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'boundaries/dependencies')
    .map((m) => m.message);
}

describe('import boundaries', () => {
  it('an import that runs up a layer fails lint (verify importing app, static, type-only and dynamic)', async () => {
    const errors = await boundaryErrors(
      'src/verify/probe.ts',
      [
        "import { openLedgerRepo } from '../app/repo.js';",
        "import type { RecordRequest } from '../app/record.js';",
        "export const later = () => import('../cli/base.js');",
        'export type { RecordRequest };',
        'export { openLedgerRepo };',
      ].join('\n'),
    );
    expect(errors).toHaveLength(3);
    expect(errors.join('\n')).toMatch(/"verify" to elements of type "app"/);
    expect(errors.join('\n')).toMatch(/"verify" to elements of type "cli"/);
  }, 120_000);

  it('a folder allowed only some files of another fails on the rest (verify may read store objects, never store/git)', async () => {
    const allowed = await boundaryErrors(
      'src/verify/probe.ts',
      "export { hashObject } from '../store/objects.js';\n",
    );
    expect(allowed).toEqual([]);
    const denied = await boundaryErrors(
      'src/verify/probe.ts',
      "export { gitEnv } from '../store/git/exec.js';\n",
    );
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatch(/"verify" to elements of type "store"/);
  }, 120_000);

  it('the bottom layers import nothing above them (paths and model import no other folder)', async () => {
    expect(
      await boundaryErrors(
        'src/paths/probe.ts',
        "export { LedgerError } from '../model/errors.js';\n",
      ),
    ).toHaveLength(1);
    expect(
      await boundaryErrors(
        'src/model/probe.ts',
        "export { checkRepoPath } from '../paths/repo-path.js';\n",
      ),
    ).toHaveLength(1);
  }, 120_000);

  it('the package entry is not a back door: nothing under src imports src/library.ts but the layers above app', async () => {
    expect(
      await boundaryErrors('src/verify/probe.ts', "export * from '../library.js';\n"),
    ).toHaveLength(1);
    expect(await boundaryErrors('src/mcp/probe.ts', "export * from '../library.js';\n")).toEqual(
      [],
    );
  }, 120_000);

  it('a type-only exception stays type-only: app may take the answer types from cli/json, never its values', async () => {
    expect(
      await boundaryErrors(
        'src/app/probe.ts',
        "import type { RecordOutput } from '../cli/json/outputs.js';\nexport type R = RecordOutput;\n",
      ),
    ).toEqual([]);
    expect(
      await boundaryErrors(
        'src/app/probe.ts',
        "import { RecordOutput } from '../cli/json/outputs.js';\nexport const r = RecordOutput;\n",
      ),
    ).toHaveLength(1);
  }, 120_000);
  it('the policy folder sits under the use cases: app imports src/app/policy, policy never imports a use case', async () => {
    expect(
      await boundaryErrors('src/app/probe.ts', "export { loadPolicy } from './policy/local.js';\n"),
    ).toEqual([]);
    const errors = await boundaryErrors(
      'src/app/policy/probe.ts',
      [
        "export { verifyRepository } from '../verify.js';",
        "export const later = () => import('../record.js');",
      ].join('\n'),
    );
    expect(errors).toHaveLength(2);
    expect(errors.join('\n')).toMatch(/"app-policy" to elements of type "app"/);
  }, 120_000);
});
