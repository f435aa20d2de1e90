/**
 * vitest global setup (see vitest.config.ts): one spool directory for the whole run, handed to
 * every test file (test/spec/spool-env.ts puts it in LEDGER_TEST_SPOOL, which the CLI children
 * inherit), and checked against spec/ when the run ends. A problem fails the run: vitest
 * reports an error thrown from a global teardown but still exits 0, so the exit code is set
 * here (vitest only ever raises it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { CddlSchema } from '../helpers/cddl-validator.js';
import { checkSpool } from './spool-check.js';

declare module 'vitest' {
  export interface ProvidedContext {
    ledgerSpool: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-spool-'));
  project.provide('ledgerSpool', dir);
  return () => {
    try {
      const schema = CddlSchema.load(
        resolve(import.meta.dirname, '..', '..', 'spec', 'ledger.cddl'),
      );
      const { counts, problems, failed } = checkSpool(dir, schema);
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      if (problems.length === 0) {
        // One line, so a run shows that the check ran and on how much.
        if (total > 0)
          console.log(
            `spec/ledger.cddl: the ${total} ledger object(s) this run wrote match (${Object.entries(
              counts,
            )
              .map(([kind, n]) => `${n} ${kind}`)
              .join(', ')})`,
          );
        return;
      }
      console.error(
        [
          `\nspec/ledger.cddl: ${failed} of the ${total} ledger object(s) this run wrote do not match (test/spec/spool-check.ts):`,
          ...problems.slice(0, 50).map((p) => `  ${p}`),
          ...(problems.length > 50 ? [`  … and ${problems.length - 50} more`] : []),
          'Either the code writes what the spec does not allow (fix the writer), or the spec is wrong (a new schema version, spec/README.md "Versions").',
        ].join('\n'),
      );
      process.exitCode = 1;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
