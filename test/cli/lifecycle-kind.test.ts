/**
 * Issue 17, item 4: lifecycle steps are a record kind of their own (schema v4, format
 * "lifecycle"), not a handoff format. Only the lifecycle commands write one; the format
 * registry never detects, parses, converts or lists it; steps written before it (KXM-shaped)
 * still read as steps. In-process library calls, CLI runs where the CLI is what is tested.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { isLifecycleStep } from '../../src/app/lifecycle-steps.js';
import { loadRecord } from '../../src/app/query.js';
import { recordHandoff } from '../../src/app/record.js';
import { withRepo } from '../../src/app/repo.js';
import {
  emitterNames,
  formatModules,
  isEmitterName,
  isFormatName,
} from '../../src/formats/index.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import type { LedgerRecord } from '../../src/model/record.js';
import { cleanup, gitdir, runCli } from '../helpers/git.js';

afterAll(cleanup);

const LINK = 'sha256:' + 'a'.repeat(64);
function step(over: Partial<LedgerRecord> = {}, observed: object = {}): LedgerRecord {
  return {
    schema: 'ledger.record/v4',
    format: 'lifecycle',
    claims: {
      status: 'rejected',
      extra: { lifecycle: { action: 'reject', from: 'pending', to: 'rejected', of: LINK } },
    },
    observed: {
      recordedAt: '2026-12-03T10:00:00.000Z',
      ledgerVersion: '0.1.0',
      base: { commit: '1'.repeat(40), tree: '2'.repeat(40) },
      candidate: { tree: '3'.repeat(40) },
      artifacts: [],
      witnesses: [],
      evidence: [],
      effectiveStatus: 'failed',
      reasons: [],
      ...observed,
    },
    ...over,
  };
}

describe('lifecycle steps are a record kind of their own (issue 17, item 4)', () => {
  it('a step is written as a v4 record of the lifecycle kind, and verify checks it as any record', async () => {
    const repo = gitdir();
    const lie = await recordHandoff({
      cwd: repo,
      status: 'success',
      summary: 'lie',
      witnesses: ['false'],
      sign: false,
    });
    expect(lie.record.schema).toBe('ledger.record/v5');
    const rejected = await applyLifecycle({ cwd: repo, id: lie.id, action: 'reject', by: 'rita' });
    const stored = await withRepo(repo, async ({ store }) =>
      loadRecord(store, await readLedgerIndex(store), rejected.id),
    );
    expect(stored.record).toMatchObject({ schema: 'ledger.record/v4', format: 'lifecycle' });
    expect(isLifecycleStep(stored.record)).toBe(true);
    const verified = await runCli(['verify', '--json'], repo);
    expect(verified.code, verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout) as {
      records: { id: string; checks: { check: string; verdict: string }[] }[];
    };
    const checks = report.records.find((r) => r.id === rejected.id)!.checks;
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((c) => c.verdict === 'contradicted' || c.verdict === 'broken')).toEqual(
      [],
    );
  });

  it('record --format lifecycle is refused, and a handoff spelt as a v4 step is never a step', async () => {
    const repo = gitdir();
    const refused = await runCli(['record', '--format', 'lifecycle', '--status', 'success'], repo);
    expect(refused.code).toBe(2);
    // The agent writes a handoff file that is a v4 step, byte for byte as the schema wants it.
    writeFileSync(join(repo, 'STEP.json'), JSON.stringify(step()));
    let made: LedgerRecord | undefined;
    try {
      made = (await recordHandoff({ cwd: repo, from: { path: 'STEP.json' }, sign: false })).record;
    } catch {
      made = undefined; // refused outright: as good
    }
    if (made !== undefined) {
      expect(made.format).not.toBe('lifecycle');
      expect(made.schema).not.toBe('ledger.record/v4');
      expect(isLifecycleStep(made)).toBe(false);
    }
  });

  it('the format registry never lists, detects or converts the lifecycle kind', () => {
    expect(isFormatName('lifecycle')).toBe(false);
    expect(formatModules().map((m) => m.name)).not.toContain('lifecycle');
    expect(emitterNames()).not.toContain('lifecycle');
    expect(isEmitterName('lifecycle')).toBe(false);
  });

  it('a step needs no kept source and a link; a KXM-shaped step written before v4 still is one', () => {
    expect(isLifecycleStep(step())).toBe(true);
    const source = { sha256: 'b'.repeat(64), size: 3, blob: '4'.repeat(40) };
    expect(isLifecycleStep(step({}, { source }))).toBe(false);
    expect(isLifecycleStep(step({ claims: { status: 'rejected' } }))).toBe(false);
    expect(isLifecycleStep(step({ schema: 'ledger.record/v2', format: 'kxm' }))).toBe(true);
    expect(isLifecycleStep(step({ schema: 'ledger.record/v2', format: 'ledger' }))).toBe(false);
  });
});
