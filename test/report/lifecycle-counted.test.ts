/**
 * Red team, round fifteen: the audit (`report` in every format, and `verify --markdown`, the CI
 * job summary) read the lifecycle without the policy's count and then put the gate's reviewer on
 * the chain's last step. After a reviewer's signed supersede and an agent's keyless reject, the
 * page said "rejected, signed by reviewer rita (resolved)" of a step rita never signed. Under
 * `lifecycle.requireReviewer` the report shows the step the gate counted (`countedState`), with
 * the reviewer who signed that step, and names the step not counted. Real repositories,
 * in-process library calls, one CLI run for the summary.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { writeReport } from '../../src/app/report.js';
import { signRecord } from '../../src/app/sign.js';
import { escapeMarkdown } from '../../src/report/escape.js';
import { cleanup, git, gitdir, runCli, tempDir, writeFiles } from '../helpers/git.js';
import { honest, lie, reviewerPolicy } from '../helpers/lifecycle.js';

afterEach(cleanup);

const RITA = 'rita@reviewers.example.com';

function row(markdown: string, id: string): string {
  return markdown.split('\n').find((l) => l.startsWith('|') && l.includes(id.slice(0, 19)))!;
}

/** A lie, its fix, and rita's signed `supersede LIE --with FIX` under requireReviewer. */
async function supersededByRita() {
  const { policy, reviewer } = reviewerPolicy();
  const dir = gitdir();
  const lied = await lie(dir);
  writeFiles(dir, { 'b.txt': 'fix\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'fix');
  const fix = await honest(dir, 'fixed');
  const theirs = await applyLifecycle({
    cwd: dir,
    id: lied,
    action: 'supersede',
    with: fix,
    by: RITA,
  });
  await signRecord({ cwd: dir, id: theirs.id, signingKey: reviewer });
  return { dir, policy, lied, fix, signed: theirs.id };
}

describe('the report shows the lifecycle step the gate counted (red team, round fifteen)', () => {
  it("a reviewer's own signed supersede shows signed, on her step", async () => {
    const { dir, policy, lied, fix, signed } = await supersededByRita();
    const out = await writeReport({ cwd: dir, policyFile: policy, markdownFile: '-' });
    expect(out.report.records.find((r) => r.id === lied)!.lifecycle).toMatchObject({
      state: 'superseded',
      step: signed,
      with: fix,
      reviewer: RITA,
      resolved: true,
    });
    expect(row(out.markdown!, lied)).toContain(
      escapeMarkdown(`superseded, signed by reviewer ${RITA} (resolved)`),
    );
  });

  it("attack: an agent's keyless reject after the reviewer's signed supersede does not borrow her signature, in the report or the CI summary", async () => {
    const { dir, policy, lied, fix, signed } = await supersededByRita();
    const agents = await applyLifecycle({ cwd: dir, id: lied, action: 'reject', by: 'mallory' });
    const html = join(tempDir(), 'report.html');
    const out = await writeReport({
      cwd: dir,
      policyFile: policy,
      markdownFile: '-',
      htmlFile: html,
    });
    const lifecycle = out.report.records.find((r) => r.id === lied)!.lifecycle!;
    expect(lifecycle).toMatchObject({
      state: 'superseded',
      step: signed,
      by: RITA,
      with: fix,
      reviewer: RITA,
      resolved: true,
      uncounted: { step: agents.id, action: 'reject', by: 'mallory' },
    });
    const cell = `superseded, signed by reviewer ${RITA} (resolved); not counted: step ${agents.id.slice(0, 19)} (reject), which no trusted reviewer signed`;
    expect(row(out.markdown!, lied)).toContain(escapeMarkdown(cell));
    expect(readFileSync(html, 'utf8')).toContain(cell);
    const summary = join(tempDir(), 'summary.md');
    const ci = await runCli(['verify', '--full', '--policy', policy, '--markdown', summary], dir);
    expect(ci.code, ci.stderr).toBe(0);
    expect(row(readFileSync(summary, 'utf8'), lied)).toContain(escapeMarkdown(cell));
  });

  it("attack: an agent's keyless supersede with its own choice of record is not shown as the reviewer's", async () => {
    const { dir, policy, lied, fix, signed } = await supersededByRita();
    const other = await honest(dir, "the agent's choice");
    const agents = await applyLifecycle({
      cwd: dir,
      id: lied,
      action: 'supersede',
      with: other,
      by: 'bot',
    });
    const out = await writeReport({ cwd: dir, policyFile: policy });
    const lifecycle = out.report.records.find((r) => r.id === lied)!.lifecycle!;
    expect(lifecycle).toMatchObject({ step: signed, with: fix, reviewer: RITA });
    expect(lifecycle.uncounted).toMatchObject({ step: agents.id, action: 'supersede' });
    // report --json keeps its published schema (runCli checks every --json answer against it).
    const json = await runCli(['report', '--policy', policy, '--json'], dir);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain(`"uncounted"`);
  });
});
