/**
 * Red team, round fifteen: `verify` with re-runs took no abort signal, so a caller that gave up
 * (an MCP client's cancel) could not stop it: the witnesses ran to their end or the policy's
 * timeout, and what a killed re-run looked like (a contradiction) was then written — an
 * attestation with `record`. Given `signal`, a verify that is cancelled ends its witnesses'
 * process groups, removes its checkouts and rejects with the signal's reason, having written
 * nothing: no attestation, no cache entry, nothing in the user's state.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { verifyRepository } from '../../src/app/verify.js';
import { asUser } from '../adversarial/helpers.js';
import { makeHome, tempDir } from '../helpers/env.js';
import { git, gitdir, writeFiles } from '../helpers/git.js';
import { eventually, policyFile, processesRunning } from './helpers.js';

const user = makeHome();
/** A witness no other test runs: its processes are found in /proc by these arguments. */
const HUNG = ['sleep', '622'];
const tmpdirBefore = process.env['TMPDIR'];

afterEach(() => {
  if (tmpdirBefore === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = tmpdirBefore;
  for (const pid of processesRunning(...HUNG)) process.kill(pid, 'SIGKILL');
});

/** Every file under `dir` with its size: what a write would change. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => `${name} ${statSync(join(dir, name)).size}`)
    .sort();
}

describe('attack: a cancelled verify goes on re-running and writes what it half saw', () => {
  it('attack: a verify cancelled while its re-run witness runs ends it, removes its checkout and writes nothing', async () => {
    // The witness passed in the work tree (the ignored file let it); re-run, it hangs.
    const dir = gitdir({ files: { '.gitignore': 'ready.txt\n' } });
    writeFiles(dir, { 'ready.txt': 'only in the work tree\n' });
    await asUser(user, () =>
      recordHandoff({ cwd: dir, status: 'success', witnesses: ['test -f ready.txt || sleep 622'] }),
    );
    const policy = policyFile({}, 8);
    const tmp = tempDir('ledger-verify-tmp-');
    process.env['TMPDIR'] = tmp;
    const refs = () => git(dir, 'for-each-ref', 'refs/ledger/');
    const before = { refs: refs(), state: files(user.env.XDG_STATE_HOME!) };

    const cancel = new AbortController();
    const verifying = asUser(user, () =>
      verifyRepository({
        cwd: dir,
        rerun: true,
        policyFile: policy,
        record: true,
        sign: false,
        cache: true,
        signal: cancel.signal,
      }),
    );
    await eventually(() => processesRunning(...HUNG).length === 1, 'the re-run witness runs');
    cancel.abort(new Error('the caller gave up'));
    await expect(verifying).rejects.toThrow('the caller gave up');

    expect(processesRunning(...HUNG)).toEqual([]);
    expect(readdirSync(tmp).filter((name) => name.startsWith('ledger-rerun-'))).toEqual([]);
    // No attestation, no cache entry, nothing noted.
    expect(refs()).toBe(before.refs);
    expect(files(user.env.XDG_STATE_HOME!)).toEqual(before.state);
  });

  it('a verify whose signal was aborted before it started runs nothing', async () => {
    const dir = gitdir();
    await asUser(user, () => recordHandoff({ cwd: dir, status: 'success', witnesses: ['true'] }));
    const cancel = new AbortController();
    cancel.abort(new Error('never mind'));
    await expect(
      asUser(user, () =>
        verifyRepository({
          cwd: dir,
          rerun: true,
          policyFile: policyFile({}),
          signal: cancel.signal,
        }),
      ),
    ).rejects.toThrow('never mind');
  });
});
