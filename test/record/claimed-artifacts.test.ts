/**
 * Claimed files are artifacts: a file the handoff says it created or modified, confirmed by the
 * base and candidate trees, is an observed artifact without `--artifact` — digested from the
 * candidate tree's blob, never from the agent's text — in the library/MCP and hook paths alike,
 * and the in-toto link lists it as a product.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportRecord } from '../../src/app/export.js';
import { runClaudeCodeHook } from '../../src/integrations/claude-code/hook.js';
import { openLedger } from '../../src/library.js';
import { cleanup, git, gitdir, tempDir, writeFiles } from '../helpers/git.js';
import { keygen } from '../export/helpers.js';

afterAll(cleanup);

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

function workedRepo(): string {
  const dir = gitdir({
    files: { 'README.md': '# r\n', 'src/app.ts': 'export const x = 1;\n', 'src/same.ts': 's\n' },
  });
  writeFiles(dir, {
    'src/new.ts': 'export const y = 2;\n',
    'src/app.ts': 'export const x = 3;\n',
    'src/staged.ts': 'staged\n',
  });
  git(dir, 'rm', '-q', 'README.md');
  git(dir, 'add', 'src/staged.ts');
  return dir;
}

const HANDOFF = JSON.stringify({
  status: 'success',
  summary: 'parser',
  artifacts: [
    // A false digest in the agent's text: the observed digest is the blob's.
    { path: 'src/new.ts', action: 'created', sha256: '0'.repeat(64) },
    { path: 'src/app.ts', action: 'modified' },
    { path: 'src/staged.ts', action: 'created' },
    { path: 'README.md', action: 'deleted' },
    { path: 'src/ghost.ts', action: 'created' },
    { path: 'src/same.ts', action: 'modified' },
    { path: 'src/app.ts', action: 'created' },
  ],
});

describe('claimed files become observed artifacts where the trees confirm them', () => {
  it('created and modified, from the blobs; deleted, missing, unchanged and contradicted claims give none', async () => {
    const dir = workedRepo();
    const ledger = openLedger(dir);
    const recorded = await ledger.record({ handoff: HANDOFF });
    const shown: any = await ledger.show(recorded.id);
    expect(shown.observed.artifacts.map((a: { path: string }) => a.path)).toEqual([
      'src/new.ts',
      'src/app.ts',
      'src/staged.ts',
    ]);
    const byPath = new Map<string, any>(shown.observed.artifacts.map((a: any) => [a.path, a]));
    expect(byPath.get('src/new.ts').sha256).toBe(sha('export const y = 2;\n'));
    expect(byPath.get('src/app.ts').sha256).toBe(sha('export const x = 3;\n'));
    expect(byPath.get('src/staged.ts')).toMatchObject({ sha256: sha('staged\n'), size: 7 });
    const tree = shown.observed.candidate.tree;
    expect(byPath.get('src/staged.ts').blob).toBe(git(dir, 'rev-parse', `${tree}:src/staged.ts`));
    // verify recomputes them from the candidate tree; the false claimed digest is contradicted.
    const report: any = await ledger.verify();
    const checks = report.records[0].checks as { id: string; verdict: string }[];
    expect(checks.filter((c) => c.id.startsWith('observed.artifacts')).length).toBeGreaterThan(0);
    expect(
      checks.filter((c) => c.id.startsWith('observed.artifacts')).map((c) => c.verdict),
    ).not.toContain('contradicted');
    expect(checks.find((c) => c.id === 'claims.artifacts[0]')?.verdict).toBe('contradicted');
  });

  it('an --artifact the handoff also claims is listed once', async () => {
    const dir = workedRepo();
    const ledger = openLedger(dir);
    const recorded = await ledger.record({ handoff: HANDOFF, artifacts: ['src/app.ts'] });
    const shown: any = await ledger.show(recorded.id);
    const paths = shown.observed.artifacts.map((a: { path: string }) => a.path);
    expect(paths.filter((p: string) => p === 'src/app.ts')).toHaveLength(1);
    expect(paths[0]).toBe('src/app.ts');
  });

  it('the Claude Code hook records them too, and the in-toto link lists them as products', async () => {
    const dir = workedRepo();
    const input = Buffer.from(
      JSON.stringify({
        session_id: 's',
        transcript_path: join(dir, 'none.jsonl'),
        cwd: dir,
        hook_event_name: 'Stop',
        stop_hook_active: false,
        last_assistant_message: `Done.\n\n\`\`\`json\n${HANDOFF}\n\`\`\`\n`,
      }),
    );
    const hooked = await runClaudeCodeHook(input, { witnesses: [] });
    expect(hooked.outcome).toBe('recorded');
    const id = hooked.record!.id;
    const keys = tempDir('ledger-keys-');
    const agent = keygen(keys, 'agent');
    const out = tempDir('ledger-link-');
    const result = await exportRecord({
      cwd: dir,
      id,
      as: 'in-toto-link',
      keyFile: agent.key,
      out,
      products: 'artifacts',
      allowUnverified: true,
    });
    const link = JSON.parse(readFileSync(result.path!, 'utf8'));
    expect(Object.keys(link.signed.products).sort()).toEqual([
      'src/app.ts',
      'src/new.ts',
      'src/staged.ts',
    ]);
    expect(link.signed.products['src/new.ts'].sha256).toBe(sha('export const y = 2;\n'));
  });
});
