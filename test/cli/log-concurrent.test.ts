/**
 * Red team, round eleven (readers, finding 2): the merged order is causal (height, then entry
 * id), not recency across writers. A record made in a fresh clone has a low height and sorts
 * below every record of a longer chain, so `show --latest` and `log -n` took "first in merged
 * order" for "newest" and hid a later attempt. A task's heads are its records that no other
 * record of the task descends from (through the entries' `prev` links); when there is more than
 * one, readers say so.
 */
import { describe, expect, it } from 'vitest';
import { cli, cliText, makeUser, record } from '../adversarial/helpers.js';
import { remoteWithClones, writeFiles } from '../helpers/git.js';

async function twoAttempts() {
  const user = makeUser();
  const { clones } = remoteWithClones(2);
  const [a, b] = clones as [string, string];
  for (const k of [1, 2, 3]) {
    writeFiles(a, { [`a${k}.txt`]: `${k}\n` });
    await record(user, a, { task: `T-${k}`, status: 'success', summary: `a's work ${k}` });
  }
  writeFiles(a, { 't7.txt': 'x\n' });
  const first = await record(user, a, {
    task: 'T-7',
    status: 'success',
    summary: 'attempt 1: all green',
  });
  expect((await cliText(user, a, ['sync', 'origin'])).code).toBe(0);
  // A fresh clone (a new agent worktree) records the second attempt before it ever synced.
  writeFiles(b, { 't7.txt': 'y\n' });
  const second = await record(user, b, {
    task: 'T-7',
    status: 'failed',
    summary: 'attempt 2: tests fail',
  });
  expect((await cliText(user, b, ['sync', 'origin'])).code).toBe(0);
  expect((await cliText(user, a, ['sync', 'origin'])).code).toBe(0);
  return { user, a, first: first.id, second: second.id };
}

describe('concurrent records of one task (red team, round eleven)', () => {
  it('attack: show --latest names the records of the task concurrent with the one it shows', async () => {
    const { user, a, first, second } = await twoAttempts();
    const shown = await cli(user, a, ['show', '--latest', 'T-7']);
    expect(shown.code, shown.stderr).toBe(0);
    // The merged order's first head is shown (scripts keep working), and the other is named.
    expect(shown.json.id).toBe(first);
    expect(shown.json.concurrent).toEqual([second]);
    const text = await cliText(user, a, ['show', '--latest', 'T-7']);
    expect(text.stdout).toMatch(/concurrent/);
    expect(text.stdout).toContain(second);
    expect(text.stdout).toMatch(/none is newer/);
  });

  it('attack: log -n does not hide a concurrent head of a listed task, and log --task marks it', async () => {
    const { user, a, first, second } = await twoAttempts();
    const limited = await cli(user, a, ['log', '-n', '3']);
    expect(limited.code, limited.stderr).toBe(0);
    expect(limited.json).toHaveLength(3);
    const head = limited.json.find((i: { id: string }) => i.id === first);
    expect(head.concurrentBelow).toEqual([second]);
    const text = await cliText(user, a, ['log', '-n', '3']);
    expect(text.stdout).toContain(second.slice(0, 19));

    const byTask = await cli(user, a, ['log', '--task', 'T-7']);
    expect(byTask.json.map((i: { id: string }) => i.id)).toEqual([first, second]);
    expect(byTask.json[1].concurrentWith).toBe(first);
    expect((await cliText(user, a, ['log', '--task', 'T-7'])).stdout).toMatch(
      /concurrent with sha256:[0-9a-f]{12} \(listed above\)/,
    );
  });

  it('a later attempt recorded on top of the earlier one is the only head: no mark', async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(1);
    const [a] = clones as [string];
    writeFiles(a, { 'x.txt': '1\n' });
    await record(user, a, { task: 'T-1', status: 'failed', summary: 'one' });
    writeFiles(a, { 'x.txt': '2\n' });
    const later = await record(user, a, { task: 'T-1', status: 'success', summary: 'two' });
    const shown = await cli(user, a, ['show', '--latest', 'T-1']);
    expect(shown.json.id).toBe(later.id);
    expect(shown.json.concurrent).toBeUndefined();
    const log = await cli(user, a, ['log', '-n', '1']);
    expect(log.json[0].concurrentBelow).toBeUndefined();
    expect((await cli(user, a, ['log', '--task', 'T-1'])).json[1].concurrentWith).toBeUndefined();
  });
});
