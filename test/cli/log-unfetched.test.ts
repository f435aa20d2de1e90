/**
 * Issue 17, item 7: plain git is explained. A plain `git clone` does not fetch refs/ledger/*,
 * and after `ledger init` a plain `git fetch` brings a remote's ledger to
 * refs/ledger-remotes/<remote>/ without adopting it. `ledger log` says how to get the records
 * (`ledger sync`), from the configuration and refs already here, without the network.
 */
import { describe, expect, it } from 'vitest';
import { cliText, makeUser, record } from '../adversarial/helpers.js';
import { bareRemote, cloneOf, git, writeFiles } from '../helpers/git.js';

describe('ledger log in a clone that has not taken in its remote’s ledger', () => {
  it('says to run ledger sync: after a plain clone, and after a plain fetch that brought new records', async () => {
    const user = makeUser();
    const remote = bareRemote();
    const agent = cloneOf(remote);
    writeFiles(agent, { 'a.txt': 'a\n' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'a');
    git(agent, 'push', '-q', 'origin', 'HEAD:main');
    await record(user, agent, { status: 'success', summary: 'one' });
    git(agent, 'push', '-q', 'origin', 'refs/ledger/*:refs/ledger/*');

    const plain = cloneOf(remote);
    const first = await cliText(user, plain, ['log']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/the ledger is empty/);
    expect(first.stderr).toMatch(
      /remote origin is not set up to fetch the ledger.*ledger sync origin/,
    );

    // Set up as ledger init sets it up, fetched with plain git: the records wait outside.
    git(
      plain,
      'config',
      '--add',
      'remote.origin.fetch',
      '+refs/ledger/*:refs/ledger-remotes/origin/*',
    );
    git(plain, 'fetch', '-q', 'origin');
    const fetched = await cliText(user, plain, ['log']);
    expect(fetched.stderr).toMatch(
      /remote origin's ledger \(refs\/ledger-remotes\/origin\/\*.*ledger sync origin/,
    );

    const synced = await cliText(user, plain, ['sync', 'origin']);
    expect(synced.code, synced.stderr).toBe(0);
    const after = await cliText(user, plain, ['log']);
    expect(after.stdout).toMatch(/one/);
    expect(after.stderr).not.toMatch(/ledger sync/);
  });

  it('says so too when the remote holds only writer refs (clones that published with ledger sync)', async () => {
    const user = makeUser();
    const remote = bareRemote();
    const agent = cloneOf(remote);
    writeFiles(agent, { 'a.txt': 'a\n' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'a');
    git(agent, 'push', '-q', 'origin', 'HEAD:main');
    await record(user, agent, { status: 'success', summary: 'published by sync' });
    expect((await cliText(user, agent, ['sync', 'origin'])).code).toBe(0);
    expect(git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/')).toMatch(
      /^refs\/ledger\/writers\/[0-9a-f]{32}$/,
    );

    const plain = cloneOf(remote);
    git(
      plain,
      'config',
      '--add',
      'remote.origin.fetch',
      '+refs/ledger/*:refs/ledger-remotes/origin/*',
    );
    git(plain, 'fetch', '-q', 'origin');
    const fetched = await cliText(user, plain, ['log']);
    expect(fetched.stderr).toMatch(/remote origin's ledger .*ledger sync origin/);
    expect((await cliText(user, plain, ['sync', 'origin'])).code).toBe(0);
    const after = await cliText(user, plain, ['log']);
    expect(after.stdout).toMatch(/published by sync/);
    expect(after.stderr).not.toMatch(/ledger sync/);
  });
});
