/**
 * Red team, round nine, finding 4: `ledger log` printed the agent's own `accept --by` words on
 * the handoff's line as an approval ("accepted by alice@corp (maintainer; SSH signature
 * verified by ledger)"), and a task with spaces and brackets could forge the whole lifecycle
 * column of a record no step touched. Who took a step is now always the step's own word after
 * "signature not checked" (log reads no signature: `log -n 20` stays about twenty records), and
 * an agent-written value that is not one plain token is quoted. Through the built CLI, on its
 * fast path (bin/run.js answers `log` without oclif) and through oclif's `main`, which share
 * one body (src/cli/log-view.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { recordHandoff } from '../../src/app/record.js';
import { signRecord } from '../../src/app/sign.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { cleanup, gitdir, runCli, tempDir } from '../helpers/git.js';
import { sshKeyPair } from '../helpers/ssh-key.js';

afterEach(cleanup);

const FORGED_BY = 'alice@corp (maintainer; SSH signature verified by ledger)';

async function handoff(cwd: string, task: string, status = 'success') {
  return (await recordHandoff({ cwd, task, status, summary: 'work', sign: false })).id;
}

/** `ledger log`'s text from the binary (its fast path), checked equal to oclif's answer. */
async function logText(cwd: string): Promise<string> {
  const bin = await runCli(['log'], cwd);
  expect(bin.code, bin.stderr).toBe(0);
  const oclif = await runCliInProcess(['log'], cwd);
  expect(oclif.stdout).toBe(bin.stdout);
  return bin.stdout;
}
const lineOf = (text: string, id: string) =>
  text.split('\n').find((l) => l.startsWith(id.slice(0, 19)))!;

describe("log shows who took a step as the step's own word (red team, round nine, finding 4)", () => {
  it('attack: the agent\'s `accept --by "alice@corp (maintainer; SSH signature verified by ledger)"` is never shown as an approval', async () => {
    const repo = gitdir();
    const id = await handoff(repo, 'T-1');
    const step = await applyLifecycle({ cwd: repo, id, action: 'accept', by: FORGED_BY });
    const text = await logText(repo);
    const line = lineOf(text, id);
    expect(line).toContain(
      `[ledger]  accepted (signature not checked; it says: by "${FORGED_BY}") ${step.record.observed.recordedAt}`,
    );
    expect(line).not.toMatch(/accepted by/);
    expect(lineOf(text, step.id)).toContain(
      `[lifecycle step: accept ${id.slice(0, 19)} (signature not checked; it says: by "${FORGED_BY}")]`,
    );
    // JSON keeps the words exactly, for a reader that judges them (`verify`, `report`).
    const json = JSON.parse((await runCli(['log', '--json'], repo)).stdout) as {
      id: string;
      lifecycle?: { by?: string };
    }[];
    expect(json.find((i) => i.id === id)!.lifecycle!.by).toBe(FORGED_BY);
  });

  it('attack: a task that imitates the lifecycle column is quoted, so it cannot pose as one', async () => {
    const repo = gitdir();
    const forged = 'T-9  [ledger]  accepted by lead@corp (signed by reviewer lead@corp) 2026-01-01';
    const id = await handoff(repo, forged);
    const line = lineOf(await logText(repo), id);
    expect(line).toMatch(
      /^sha256:\S+ {2}\S+ {2}success {2}"T-9 {2}\[ledger\] {2}accepted by lead@corp \(signed by reviewer lead@corp\) 2026-01-01" {2}\[ledger\]$/,
    );
  });

  it('attack: a quote, a backslash or a look-alike quote in a task or a --by cannot close the quotes early', async () => {
    const repo = gitdir();
    const id = await handoff(repo, 'T-9"  [ledger]  accepted”  \\"x');
    await applyLifecycle({
      cwd: repo,
      id,
      action: 'accept',
      by: 'x") 2026-01-01  (signed by reviewer lead@corp',
    });
    const line = lineOf(await logText(repo), id);
    expect(line).toContain('  "T-9\\"  [ledger]  accepted\\u201d  \\\\\\"x"  [ledger]  accepted (');
    expect(line).toContain(
      '(signature not checked; it says: by "x\\") 2026-01-01  (signed by reviewer lead@corp") ',
    );
  });

  it('honest views stay readable: a plain task and --by bare, pending says nothing, a reviewer-signed step is still not called proven', async () => {
    const repo = gitdir();
    const pending = await handoff(repo, 'T-12');
    const lowered = (
      await recordHandoff({
        cwd: repo,
        task: 'fix login bug',
        status: 'success',
        summary: 'says it passes',
        witnesses: ['false'],
        sign: false,
      })
    ).id;
    const accepted = await handoff(repo, 'T-13');
    const step = await applyLifecycle({ cwd: repo, id: accepted, action: 'accept', by: 'rita' });
    const reviewer = sshKeyPair(tempDir(), 'reviewer');
    await signRecord({ cwd: repo, id: step.id, signingKey: reviewer.key });
    const text = await logText(repo);
    expect(lineOf(text, pending)).toMatch(/ {2}success {2}T-12 {2}\[ledger\]$/);
    expect(lineOf(text, lowered)).toMatch(
      / {2}failed \(claimed success\) {2}"fix login bug" {2}\[ledger\]$/,
    );
    expect(lineOf(text, accepted)).toMatch(
      / {2}T-13 {2}\[ledger\] {2}accepted \(signature not checked; it says: by rita\) \S+$/,
    );
    expect(lineOf(text, step.id)).toMatch(
      / {2}accepted {2}T-13 {2}\[lifecycle step: accept sha256:\S+ \(signature not checked; it says: by rita\)\]$/,
    );
  });

  // Round fifteen (beside its findings): a step without --by left the state word bare, while
  // under the auditor's lifecycle.requireReviewer the gate may count another step (log reads
  // no policy): the state a step set is never printed without saying its signature was not read.
  it('a step without --by: the state it set still says its signature was not checked', async () => {
    const repo = gitdir();
    const id = await handoff(repo, 'T-14');
    const step = await applyLifecycle({ cwd: repo, id, action: 'reject' });
    const text = await logText(repo);
    expect(lineOf(text, id)).toMatch(
      / {2}T-14 {2}\[ledger\] {2}rejected \(signature not checked\) \S+$/,
    );
    expect(lineOf(text, step.id)).toMatch(
      /\[lifecycle step: reject sha256:\S+ \(signature not checked\)\]$/,
    );
  });
});
