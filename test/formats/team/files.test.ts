/**
 * Spec-Workflow-Toolkit's JSON files, each recognised by its own shape: a workspaceId alone is
 * no longer taken for a progress file, feature-list.json and the older pending.json are read as
 * what they are, and anything else is refused saying which kinds there are.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { team } from '../../../src/formats/team/index.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const DIR = join(PROJECT_ROOT, 'fixtures', 'handoffs', 'team');
const ctx = { repoRoot: '/repo', now: new Date('2026-09-08T12:00:00Z') };
const parse = (file: string) =>
  team.parse(readFileSync(join(DIR, file)), { ...ctx, fileName: file });

describe('toolkit JSON files by shape', () => {
  it('feature-list.json: as far along as its least finished feature, not a status-less progress file', () => {
    const r = parse('feature-list.json');
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.handoff.status).toBe('partial');
    expect(r.handoff.claims.status).toBe('');
    expect(r.handoff.reasons.find((x) => x.code === 'TEAM_FEATURES_OPEN')?.message).toMatch(
      /2 of 3 feature\(s\) not completed: F002, F003/,
    );
    expect(r.handoff.reasons.map((x) => x.code)).not.toContain('TEAM_PROGRESS_NO_STATUS');
  });
  it('the older pending.json queue: every insight in it, no status to fail', () => {
    const r = parse('pending.json');
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.handoff.status).toBe('success');
    expect(r.handoff.claims.insights?.map((i) => [i.id, i.category])).toEqual([
      ['INS-20250121143000123', 'pattern'],
      ['INS-20250121143000456', 'decision'],
    ]);
  });
  it('an insight as the capture hook writes it (contentHash matches)', () => {
    const r = parse('hook-insight.json');
    expect(r.ok && r.handoff.reasons).toEqual([]);
  });
  it('a workspaceId and nothing of a known shape is refused, naming the kinds', () => {
    const r = parse('workspace-only.json');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]?.expected).toMatch(/claude-progress\.json.*feature-list\.json/);
  });
});
