/**
 * Issue 20: summaries of the GSD template family as public projects write them (corpus
 * `gsd.json`, documents copied unchanged), each read into every claim it makes or refused with
 * the line and the reason — never recorded with its file list dropped. In npm test: parsing is
 * pure, so each document is judged in memory; one goes through record and verify.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import { detectFormat, type ParseContext } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

/**
 * What verify said of a recorded summary: its file verdicts (sorted), then its status verdict and
 * the exit code — an honest summary that says it is complete must verify with exit 0.
 */
function verdictsOf(report: Awaited<ReturnType<typeof verifyRepository>>, kinds: string[]) {
  const checks = report.records[0]!.checks;
  const status = checks.find((c) => c.check === 'status');
  return [
    ...checks
      .filter((c) => kinds.includes(c.check))
      .map((c) => `${c.subject} ${c.verdict}`)
      .sort(),
    `status ${status?.subject} ${status?.verdict}`,
    `exit ${report.exitCode}`,
  ];
}

interface Entry {
  file: string;
  source: string;
  detect: string;
  expect: {
    /** A refusal: problems whose messages hold these (the line and what is wrong). */
    refused?: string | string[];
    status: string;
    claimed: string;
    artifacts: [string, string][];
    decisions?: number;
    withoutKeyFiles?: [string, string][];
    /** Items that name no single file (a pattern): kept as unverifiable, never dropped. */
    prose?: [string, string][];
    /**
     * The checks a summary claims (a GSD-2 Verification Evidence row, a `## Verification` item
     * that states its result, a VBW `ac_results` entry): command (null: none), result, exit code.
     */
    checks?: [string | null, string, number?][];
    /** Verification items whose result is not said plainly: their document lines (issue 20). */
    unchecked?: number[];
    /** What a document no format takes seems to be (a plan, not a summary): said by detection. */
    seems?: string;
  };
  /** The same document edited into a lie the reader must catch. */
  lie?: { replace: [string, string]; status: string; reason: string };
}

const HERE = join(PROJECT_ROOT, 'test', 'formats', 'corpus');
const manifest = JSON.parse(readFileSync(join(HERE, 'gsd.json'), 'utf8')) as {
  documents: Entry[];
};
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const claimsOf = (bytes: Uint8Array, fileName: string) => {
  const r = maxsim.parse(bytes, { ...ctx, fileName });
  if (!r.ok) throw new Error(`${fileName} refused: ${JSON.stringify(r.problems)}`);
  return r.handoff;
};

describe('GSD-family summaries from public projects (test/formats/corpus/gsd.json)', () => {
  for (const doc of manifest.documents) {
    it(`${doc.file}: ${
      doc.expect.refused === undefined
        ? 'every file it lists is a claim with its action'
        : 'refused with its line and the reason'
    }`, () => {
      const bytes = readFileSync(join(HERE, doc.file));
      const name = doc.file.split('/').pop() ?? doc.file;
      if (doc.detect === 'none') {
        // Taken for no format: the refusal says what the file seems to be.
        let said = '';
        try {
          detectFormat(bytes, name);
        } catch (error) {
          said = `${(error as Error).message} ${(error as { hint?: string }).hint ?? ''}`;
        }
        expect(said).toMatch(/could not tell which handoff format/);
        expect(said).toContain(doc.expect.seems);
      } else expect(detectFormat(bytes, name).module.name).toBe(doc.detect);
      if (doc.expect.refused !== undefined) {
        const r = maxsim.parse(bytes, { ...ctx, fileName: name });
        expect(r.ok).toBe(false);
        const said = r.ok ? '' : r.problems.map((p) => p.message).join('\n');
        for (const wanted of [doc.expect.refused].flat()) expect(said).toContain(wanted);
        return;
      }
      const h = claimsOf(bytes, name);
      expect((h.claims.artifacts ?? []).map((a) => [a.path, a.action])).toEqual(
        doc.expect.artifacts,
      );
      const prose = h.claims.extra?.['proseArtifacts'] as
        { action: string; text: string }[] | undefined;
      expect(prose?.map((p) => [p.action, p.text])).toEqual(doc.expect.prose);
      expect(h.claims.status).toBe(doc.expect.claimed);
      expect(h.status).toBe(doc.expect.status);
      if (doc.expect.decisions !== undefined)
        expect(h.claims.decisions).toHaveLength(doc.expect.decisions);
      // Every document: a check it claims is pinned, so none is added or dropped unseen.
      expect((h.claims.checks ?? []).map((c) => [c.command ?? null, c.result, c.exitCode])).toEqual(
        (doc.expect.checks ?? []).map(([command, result, code]) => [command, result, code]),
      );
      const unchecked = h.claims.extra?.['unchecked'] as { line: number }[] | undefined;
      expect(unchecked?.map((u) => u.line)).toEqual(doc.expect.unchecked);
      if (doc.lie !== undefined) {
        const [from, to] = doc.lie.replace;
        const text = bytes.toString('utf8');
        expect(text).toContain(from);
        const lie = claimsOf(new TextEncoder().encode(text.replace(from, to)), name);
        expect(lie.status).toBe(doc.lie.status);
        expect(lie.reasons.map((r) => r.code)).toContain(doc.lie.reason);
      }
      expect(h.reasons.map((r) => r.code)).not.toContain('MAXSIM_FORBIDDEN_PHRASE');
      if (doc.expect.withoutKeyFiles) {
        // The same document with its key-files cut: the body's sections alone say the same.
        const text = bytes.toString('utf8').replace(/\nkey-files:\n(?: {2}.*\n)+/, '\n');
        expect(text).not.toContain('key-files:');
        const body = claimsOf(new TextEncoder().encode(text), name);
        expect((body.claims.artifacts ?? []).map((a) => [a.path, a.action])).toEqual(
          doc.expect.withoutKeyFiles,
        );
      }
    });
  }

  it('through record and verify: the real 07-02 summary claims created a file its base already had', async () => {
    // types.ts aside, the summary says calculations.ts was created; here the base has it.
    const repo = gitdir({ files: { 'apps/admin/lib/invoices/calculations.ts': 'export {};\n' } });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, {
      'apps/admin/lib/invoices/calculations.ts': 'export const a = 1;\n',
      'apps/admin/lib/invoices/constants.ts': 'export {};\n',
      'apps/admin/lib/invoices/schemas.ts': 'export {};\n',
      'apps/admin/lib/invoices/csv-export.ts': 'export {};\n',
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'feat(07-02)');
    const file = '07-02-file-tracking-key-files.md';
    const bytes = readFileSync(join(HERE, 'docs', 'gsd', file));
    await recordHandoff({ cwd: repo, base, from: { bytes, fileName: file } });
    const report = await verifyRepository({ cwd: repo });
    const verdicts = report.records[0]!.checks.filter((c) => c.check === 'claim.artifact').map(
      (c) => `${c.subject} ${c.verdict}`,
    );
    expect(verdicts.sort()).toEqual([
      'apps/admin/lib/invoices/calculations.ts contradicted',
      'apps/admin/lib/invoices/constants.ts verified',
      'apps/admin/lib/invoices/csv-export.ts verified',
      'apps/admin/lib/invoices/schemas.ts verified',
    ]);
  });

  it('through record and verify: the real 50-06 summary (— NEW: marker) honest, then with its new file already in the base', async () => {
    const file = 'plan-50-06-key-files-new-marker.md';
    const bytes = readFileSync(join(HERE, 'docs', 'gsd', file));
    const verdictsOn = async (baseFiles: Record<string, string>) => {
      const repo = gitdir({ files: { 'backend/package.json': '{}\n', ...baseFiles } });
      const base = git(repo, 'rev-parse', 'HEAD');
      writeFiles(repo, {
        'backend/src/db-explore.ts': 'export {};\n',
        'backend/package.json': '{"scripts": {"db:explore": "tsx src/db-explore.ts"}}\n',
      });
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', 'feat(50-06): add read-only CLI database explorer');
      await recordHandoff({ cwd: repo, base, from: { bytes, fileName: file } });
      return verdictsOf(await verifyRepository({ cwd: repo }), ['claim.artifact']);
    };
    expect(await verdictsOn({})).toEqual([
      'backend/package.json verified',
      'backend/src/db-explore.ts verified',
      'status complete verified',
      'exit 0',
    ]);
    expect(await verdictsOn({ 'backend/src/db-explore.ts': '// old\n' })).toEqual([
      'backend/package.json verified',
      'backend/src/db-explore.ts contradicted',
      'status complete verified',
      'exit 1',
    ]);
  });
});

/**
 * Round three (issue 20): one real document of each shape that had only written fixtures, through
 * record and verify — honest on a tree that matches it, then with one file it says it created
 * already in the base.
 */
describe('the three shapes, real documents, through record and verify', () => {
  const verdictsOn = async (
    file: string,
    base: Record<string, string>,
    candidate: Record<string, string>,
  ) => {
    const repo = gitdir({ files: { 'README.md': 'x\n', ...base } });
    const head = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, candidate);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'feat: the plan');
    const bytes = readFileSync(join(HERE, 'docs', 'gsd', file));
    await recordHandoff({ cwd: repo, base: head, from: { bytes, fileName: file } });
    const report = await verifyRepository({ cwd: repo });
    return verdictsOf(report, ['claim.artifact', 'claim.unverifiable']);
  };
  const files = (paths: string[], text: string) => Object.fromEntries(paths.map((p) => [p, text]));

  /**
   * A summary that says it created every file it lists: honest on a tree that has them all (its
   * status verified, exit 0), then with `already` in the base (that file contradicted, exit 1).
   */
  const everyFileCreated = async (file: string, status: string, text: string, already: string) => {
    const paths = manifest.documents
      .find((d) => d.file.endsWith(file))!
      .expect.artifacts.map(([p]) => p);
    const honest = await verdictsOn(file, {}, files(paths, text));
    expect(honest).toEqual([
      ...paths.map((p) => `${p} verified`).sort(),
      `status ${status} verified`,
      'exit 0',
    ]);
    const lie = await verdictsOn(file, { [already]: '// old\n' }, files(paths, text));
    expect(lie.filter((v) => v.endsWith('contradicted'))).toEqual([`${already} contradicted`]);
    expect(lie.slice(-1)).toEqual(['exit 1']);
  };

  it('## Status: Complete without evidence (16-04): an honest summary verifies with exit 0; a created file the base had is contradicted', async () => {
    // It was held at partial, so verify contradicted the honest "Complete" (exit 1).
    await everyFileCreated(
      '16-04-status-complete-heading.md',
      'Complete',
      'export {};\n',
      'src/app/(fan)/page.tsx',
    );
  });

  it('VBW `path` -- created: / -- modified: items (vbw-09-01): a created file the base had is contradicted', async () => {
    const modified = [
      'backend/src/services/assignmentService.ts',
      'backend/src/routes/schedule.ts',
      'frontend/src/features/schedule/hooks.ts',
    ];
    const created = 'backend/src/services/__tests__/deleteAssignmentOrphan.stopped.test.ts';
    const candidate = { ...files(modified, 'export const v = 2;\n'), [created]: 'test();\n' };
    const file = 'vbw-09-01-item-actions-created-modified.md';
    const honest = await verdictsOn(file, files(modified, 'export const v = 1;\n'), candidate);
    expect(honest).toEqual([
      ...[...modified, created].map((p) => `${p} verified`).sort(),
      'status complete verified',
      'exit 0',
    ]);
    const lie = await verdictsOn(
      file,
      { ...files(modified, 'export const v = 1;\n'), [created]: '// old\n' },
      candidate,
    );
    expect(lie).toContain(`${created} contradicted`);
    expect(lie.filter((v) => v.endsWith('contradicted'))).toHaveLength(1);
    expect(lie.slice(-1)).toEqual(['exit 1']);
  });

  it('bare paths under ## Key Files Created (plan-01-03): (updated) is modified, a pattern is unverifiable, a created file the base had is contradicted', async () => {
    const candidate = {
      'src/cli/flags.ts': 'export const flags = 2;\n',
      'src/cli/program.ts': 'export {};\n',
      'src/index.ts': 'export {};\n',
      'src/commands/help.ts': 'export {};\n',
    };
    const file = 'plan-01-03-key-files-created-bare-paths.md';
    const honest = await verdictsOn(
      file,
      { 'src/cli/flags.ts': 'export const flags = 1;\n' },
      candidate,
    );
    expect(honest).toEqual([
      'Created: src/commands/*.ts (8 command factories) unverifiable',
      'src/cli/flags.ts verified',
      'src/cli/program.ts verified',
      'src/index.ts verified',
      'status (no status) verified',
      'exit 0',
    ]);
    const lie = await verdictsOn(
      file,
      { 'src/cli/flags.ts': 'export const flags = 1;\n', 'src/cli/program.ts': '// old\n' },
      candidate,
    );
    expect(lie).toContain('src/cli/program.ts contradicted');
    expect(lie.slice(-1)).toEqual(['exit 1']);
  });

  it('### Created (10 files) over | File | Lines | Purpose | (plan-04-01): every row created; one the base had is contradicted', async () => {
    await everyFileCreated(
      'plan-04-01-created-count-lines-table.md',
      'complete',
      '# skill\n',
      'templates/skills/agent-system-map/SKILL.md',
    );
  });
});

/**
 * Issue 20, round four: the commands a summary's `## Verification` says passed are claimed checks,
 * judged against the witness ledger observed at record time for the same command. Before, they
 * were section text only: a summary could say `npm test` passes while it failed, and verify said
 * nothing.
 */
describe('a ## Verification item is a claimed check (paul-46-01, its full-suite line as npm test)', () => {
  const file = 'paul-46-01-what-was-built-table.md';
  const said = '- `bun test` (full suite) — 573 pass, 0 fail ✅';
  const claimsNpmTest = () => {
    const text = readFileSync(join(HERE, 'docs', 'gsd', file), 'utf8');
    expect(text).toContain(said);
    return text.replace(said, '- `npm test` (full suite) — 573 pass, 0 fail ✅');
  };
  // One record (record and verify cost a second or more): `npm test` claimed passed and witnessed
  // failing, beside `node --version` claimed passed and witnessed passing.
  it('claimed passed, the witness failed: contradicted; claimed passed, the witness passed: verified', async () => {
    const repo = gitdir({ files: { 'README.md': 'x\n' } });
    const head = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, {
      'package.json': JSON.stringify({ scripts: { test: 'exit 1' } }),
      'packages/coda/src/forge/__tests__/brownfield-e2e.test.ts': 'test();\n',
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'feat(46-01)');
    const text = claimsNpmTest().replace(
      '`bun test brownfield-e2e.test.ts` — 4 pass, 0 fail ✅',
      '`node --version` — exit 0 ✅',
    );
    const bytes = new TextEncoder().encode(text);
    const witnesses = ['npm test', 'node --version'];
    await recordHandoff({ cwd: repo, base: head, from: { bytes, fileName: file }, witnesses });
    const report = await verifyRepository({ cwd: repo });
    const verdicts = report.records[0]!.checks.filter((c) => c.check === 'claim.check').map(
      (c) => `${c.subject} ${c.verdict}`,
    );
    expect(verdicts).toEqual(['node --version verified', 'npm test contradicted']);
    expect(report.exitCode).toBe(1);
  });

  it('a failure said outright is a failed check; mixed or qualified wording is unchecked, never a guess', () => {
    const read = (line: string) => {
      const text = claimsNpmTest().replace('- `npm test` (full suite) — 573 pass, 0 fail ✅', line);
      const h = claimsOf(new TextEncoder().encode(text), file);
      const unchecked = (h.claims.extra?.['unchecked'] ?? []) as { line: number }[];
      const npm = (h.claims.checks ?? []).find((c) => c.command?.includes('npm test'));
      return [npm?.result ?? 'none', unchecked.map((u) => u.line).join(',')];
    };
    expect(read('- `npm test` — 2 failed ❌')).toEqual(['failed', '']);
    expect(read('- `npm test` — 4/4 passing; 12 remaining failures are pre-existing')).toEqual([
      'none',
      '29',
    ]);
    expect(read('- `npm test` — 20/21 passed')).toEqual(['none', '29']);
    expect(read('- `npm test` (full suite)')).toEqual(['none', '29']);
    expect(read('- `cd pkg && npm test --passWithNoTests` → exits 0')).toEqual(['passed', '']);
    // A pass word under a negation is not a pass (TAP's `not ok`, "does not pass yet").
    expect(read('- `npm test` — not ok')).toEqual(['none', '29']);
    expect(read("- `npm test` — doesn't pass yet")).toEqual(['none', '29']);
    expect(read('- `npm test` — never green on CI')).toEqual(['none', '29']);
    expect(read('- `npm test` — passes, no failures')).toEqual(['passed', '']);
    expect(read('- `npm test` — passes without any failures')).toEqual(['passed', '']);
  });
});
