/**
 * Issue 20: the summary shapes of the GSD template family that were dropped, weakened or
 * misread — per-item actions (VBW's `` `path` -- create: ``), bare paths, a counted
 * `### Created (2 files)` over a `| File | Lines | Purpose |` table, a forecast that is not
 * evidence, the README's `### Status + Evidence`, and a files section read into nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { readFrontMatter } from '../../../src/formats/kit/front-matter.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const DIR = join(PROJECT_ROOT, 'fixtures', 'handoffs', 'maxsim');
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
function parsed(bytes: Uint8Array, fileName = 'SUMMARY.md'): ParsedHandoff {
  const r = maxsim.parse(bytes, { ...ctx, fileName });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const read = (file: string): Uint8Array => readFileSync(join(DIR, file));
const pairs = (h: ParsedHandoff) => (h.claims.artifacts ?? []).map((a) => [a.path, a.action]);

describe('GSD-family summary shapes', () => {
  it('per-item actions (`path` -- create: / -- modify: / -- delete:) are created/modified/deleted claims, not touched', () => {
    const h = parsed(read('vbw-template-item-actions.md'));
    expect(pairs(h)).toEqual([
      ['src/config/loader.ts', 'created'],
      ['src/config/index.ts', 'modified'],
      ['src/legacy/env.ts', 'deleted'],
    ]);
    expect(h.claims.status).toBe('complete');
    expect(h.claims.extra?.['summaryStatus']).toEqual({
      written: 'complete',
      where: 'front matter status',
    });
  });

  it('through record and verify: a file the summary says it modified, which the commit created, is contradicted', async () => {
    const repo = gitdir({ files: { 'src/legacy/env.ts': 'export {};\n' } });
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'rm', '-q', 'src/legacy/env.ts');
    writeFiles(repo, {
      'src/config/loader.ts': 'export const load = 1;\n',
      'src/config/index.ts': 'export * from "./loader";\n',
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'feat(03-01)');
    const file = 'vbw-template-item-actions.md';
    await recordHandoff({ cwd: repo, base, from: { bytes: read(file), fileName: file } });
    const report = await verifyRepository({ cwd: repo });
    const verdicts = report.records[0]!.checks.filter((c) => c.check === 'claim.artifact').map(
      (c) => `${c.subject} ${c.verdict}`,
    );
    expect(verdicts.sort()).toEqual([
      'src/config/index.ts contradicted',
      'src/config/loader.ts verified',
      'src/legacy/env.ts verified',
    ]);
  });

  it('bare paths under ## Key Files Created and a `### Created (2 files)` over a | File | Lines | Purpose | table are claims with their actions', () => {
    const h = parsed(read('summary-bare-paths-table.md'));
    expect(pairs(h)).toEqual([
      ['src/app.ts', 'created'],
      ['src/lib/db.ts', 'created'],
      ['Makefile', 'created'],
      ['src/store/cache.ts', 'created'],
      ['src/store/keys.ts', 'created'],
      ['src/index.ts', 'modified'],
    ]);
    // The opening `**Status:** ✓ Complete` label is the claimed status. A summary is judged by
    // that claim, its files and its evidence, not held at partial for the handoff contract's
    // sections its template does not have (verify would contradict every honest one).
    expect(h.claims.status).toBe('complete');
    expect(h.status).toBe('success');
    expect(h.reasons.map((r) => r.code)).not.toContain('MAXSIM_MISSING_SECTION');
  });

  it('an item naming several paths separated by commas claims each of them (it claimed only the first; the rest became its note, unchecked)', () => {
    // GSD-2's task summaries write `## Key Files Created` as one comma-separated line.
    const text = readFileSync(join(DIR, 'summary-bare-paths-table.md'), 'utf8').replace(
      '- src/app.ts - entry point\n- src/lib/db.ts (84 lines)\n- Makefile\n',
      '- src/app.ts, src/lib/db.ts, Makefile\n- `src/x.ts`, `src/y.ts`\n- src/z.ts (reads a, b, c)\n- src/w.ts, and the tests\n',
    );
    const h = parsed(enc(text));
    expect(pairs(h).slice(0, 7)).toEqual([
      ['src/app.ts', 'created'],
      ['src/lib/db.ts', 'created'],
      ['Makefile', 'created'],
      ['src/x.ts', 'created'],
      ['src/y.ts', 'created'],
      ['src/z.ts', 'created'],
      ['src/w.ts', 'created'],
    ]);
    // A note with commas stays a note; a list that is not all paths is not split.
    expect(h.claims.artifacts?.some((a) => a.path === 'a' || a.path === 'the tests')).toBe(false);
  });

  it('"should work" in a forecast (## Next Phase Readiness) is not a forbidden phrase; as evidence it still is', () => {
    const h = parsed(read('summary-bare-paths-table.md'));
    expect(h.reasons.map((r) => r.code)).not.toContain('MAXSIM_FORBIDDEN_PHRASE');
    expect(h.status).toBe('success');
    const text = readFileSync(join(DIR, 'summary-bare-paths-table.md'), 'utf8').replace(
      '## Next Phase Readiness',
      '## Verification',
    );
    const used = parsed(enc(text));
    expect(used.reasons.map((r) => r.code)).toContain('MAXSIM_FORBIDDEN_PHRASE');
    expect(used.status).toBe('failed');
  });

  it("### Status + Evidence (the README's words) reads as the Status section", () => {
    const h = parsed(read('contract-status-evidence-heading.md'), 'handoff.md');
    expect(h.claims.status).toBe('PASS');
    expect(h.claims.checks).toEqual([
      expect.objectContaining({ command: 'npm test', result: 'passed' }),
    ]);
    expect(h.reasons.map((r) => r.code)).not.toContain('MAXSIM_MISSING_SECTION');
    expect(h.status).toBe('success');
  });

  it('a files section that names no file is said (unverifiable prose with its line), never dropped', () => {
    const h = parsed(
      enc(
        '---\nphase: 01\nplan: 02\nstatus: complete\n---\n\n# Phase 1 Plan 2 Summary\n\n## Files Created\n\n| Name | Purpose |\n|---|---|\n| the loader | reads config |\n',
      ),
    );
    expect(h.claims.artifacts).toEqual([]);
    expect(h.claims.extra?.['proseArtifacts']).toEqual([
      expect.objectContaining({
        action: 'Created',
        why: expect.stringMatching(/line 9: ## Files Created/),
      }),
    ]);
    const record = { claims: h.claims } as Parameters<
      NonNullable<NonNullable<typeof maxsim.verify>['uncheckable']>
    >[0];
    expect(maxsim.verify?.uncheckable?.(record)).toHaveLength(1);
  });

  it('front matter files_modified and nested file_tracking: key_files: are claims', () => {
    const h = parsed(
      enc(
        '---\nphase: 02\nplan: 01\ncompleted: 2026-01-02\nfiles_modified:\n  - src/a.ts\n  - src/b.ts\nfile_tracking:\n  key_files:\n    created: [src/c.ts]\n    modified: [src/a.ts]\n---\n\n# Phase 2 Plan 1 Summary\n',
      ),
    );
    expect(pairs(h)).toEqual([
      ['src/c.ts', 'created'],
      ['src/a.ts', 'modified'],
      ['src/b.ts', 'touched'],
    ]);
  });

  it('a summary known by its title: its front matter files_modified are claims, and front matter that is not YAML is refused with its line', () => {
    // `phase`, `plan` and `files_modified` and no `completed`/`status`: a plan's keys, but the
    // title says Summary. Its front matter was left unread: recorded with zero claims, verify 0.
    const h = parsed(
      enc(
        '---\nphase: 02\nplan: 01\nfiles_modified:\n  - src/a.ts\n  - src/missing.ts\n---\n\n# Phase 2 Plan 1: Config Summary\n\nDid the config work.\n',
      ),
    );
    expect(pairs(h)).toEqual([
      ['src/a.ts', 'touched'],
      ['src/missing.ts', 'touched'],
    ]);
    const bad = maxsim.parse(
      enc('---\nphase: 1\nplan: 2\ntags: [a, b\nkey: 1\n---\n\n# Phase 1 Plan 2 Summary\n'),
      ctx,
    );
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems[0]?.message).toMatch(/^front matter line 5, column 1: /);
  });

  it('a front matter status no template uses is refused with the field, not read as no status', () => {
    const r = maxsim.parse(
      enc('---\nphase: 02\nplan: 01\nstatus: sort-of-done\n---\n\n# Summary\n'),
      ctx,
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems[0]).toMatchObject({
      path: 'frontMatter.status',
      got: 'sort-of-done',
    });
  });

  it('the front matter status refusal carries the document line of status:, like the YAML errors', () => {
    const r = maxsim.parse(
      enc('---\nphase: 02\nplan: 01\nsubsystem: ui\nstatus: sort-of-done\n---\n\n# Summary\n'),
      ctx,
    );
    expect(!r.ok && r.problems[0]?.message).toMatch(/^front matter line 5: status /);
    const labelled = maxsim.parse(
      enc('---\nphase: 02\nplan: 01\n---\n\n# Plan 02-01 Summary\n\n**Status:** Sort of done\n'),
      ctx,
    );
    expect(labelled.ok).toBe(false);
    expect(!labelled.ok && labelled.problems[0]).toMatchObject({ path: 'Status' });
    expect(!labelled.ok && labelled.problems[0]?.message).toMatch(/^line 8: the opening /);
  });

  it('a YAML error carries the line and column of the document, not of the front matter', () => {
    const r = readFrontMatter('phase: 1\nplan: 2\ntags: [a, b\nkey: 1');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems[0]?.message).toMatch(/^front matter line [3-5], column \d+: /);
    const bad = readFrontMatter('a: 1\nb: 2\nc: [@x]');
    expect(!bad.ok && bad.problems[0]?.message).toMatch(/^front matter line 4, column 5: /);
  });
});
