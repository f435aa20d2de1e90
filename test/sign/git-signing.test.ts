/**
 * `ledger record --sign` / `ledger sign` sign wherever `git commit -S` signs with
 * gpg.format=ssh: the key from user.signingKey in any scope (the repository's included), a
 * passphrase typed on a real terminal, a FIDO key (the invocation ssh-keygen gets), an agent's
 * first key; while the programs and the switch (gpg.ssh.program, ledger.sign) come only from
 * the user's own config.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { showRecord } from '../../src/app/show.js';
import { isLedgerError } from '../../src/model/errors.js';
import { asUser, record } from '../adversarial/helpers.js';
import { makeHome } from '../helpers/env.js';
import { BIN, cleanup, git, gitdir, runCli } from '../helpers/git.js';
import { keygen, run, startAgent, type Key } from './ssh.js';

afterAll(cleanup);

type User = ReturnType<typeof makeHome>;

function userConfig(user: User, key: string, value: string): void {
  git(user.home, 'config', '--file', user.env.GIT_CONFIG_GLOBAL!, key, value);
}

/** What ssh-keygen -l says the key's fingerprint is. */
function fingerprintOf(key: Key): string {
  return run('ssh-keygen', ['-l', '-f', `${key.path}.pub`]).stdout.split(' ')[1]!;
}

/** The fingerprint of each signing key over the record. */
async function signers(user: User, dir: string, id: string): Promise<string[]> {
  const shown = await asUser(user, () => showRecord({ cwd: dir, id }));
  return (shown.signatures ?? []).map((s) => s.key ?? '');
}

describe('signing as git signs', () => {
  it("the repository's own user.signingKey is honoured (a relative path from the work tree's top); ledger.sign only from the user's config", async () => {
    const user = makeHome();
    const dir = gitdir();
    const key = await keygen(dir, 'repo-key', 'ed25519'); // inside the work tree, relative path
    git(dir, 'config', 'user.signingKey', 'repo-key.pub');
    // A key kept in the work tree is git-ignored, as a team keeps it: else record refuses to
    // carry an untracked private key into the candidate tree (SECRET_FILE, issue 18).
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'repo-key\nrepo-key.pub\n');
    // The repository asks for signing: not its decision.
    git(dir, 'config', 'ledger.sign', 'true');
    const unsigned = await record(user, join(dir, 'src'), { status: 'success', summary: 'a' });
    expect(await signers(user, dir, unsigned.id)).toEqual([]);
    // The user asks for it: the repository's key signs, as git commit -S would use it.
    userConfig(user, 'ledger.sign', 'true');
    const signed = await record(user, join(dir, 'src'), { status: 'success', summary: 'b' });
    expect(await signers(user, dir, signed.id)).toEqual([fingerprintOf(key)]);
  });

  it('gpg.ssh.program: the user’s own runs (a FIDO sk- key gets exactly ssh-keygen’s invocation); one planted in the repository never does', async () => {
    const user = makeHome();
    const dir = gitdir();
    const { id } = await record(user, dir, { status: 'success', summary: 'to sign' });
    const log = join(user.home, 'argv.log');
    const mine = join(user.home, 'fake-ssh-keygen');
    // No authenticator here: it records how it was called and fails as ssh-keygen would.
    writeFileSync(
      mine,
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${log}'\necho 'Confirm user presence for key ED25519-SK SHA256:x' >&2\necho 'Signing failed: device not found' >&2\nexit 255\n`,
    );
    chmodSync(mine, 0o755);
    userConfig(user, 'gpg.ssh.program', mine);
    const planted = join(dir, '.git', 'planted');
    writeFileSync(planted, `#!/bin/sh\ntouch '${planted}.ran'\nexit 1\n`);
    chmodSync(planted, 0o755);
    git(dir, 'config', 'gpg.ssh.program', planted);
    const sk = join(user.home, '.ssh', 'id_ed25519_sk');

    const r = await runCli(
      ['sign', id, '--signing-key', '~/.ssh/id_ed25519_sk', '--json'],
      dir,
      user.env,
    );
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.code).toBe('USAGE');
    expect(error.message).toMatch(/device not found/);
    const argv = readFileSync(log, 'utf8').trimEnd().split('\n');
    expect(argv.slice(0, 6)).toEqual(['-Y', 'sign', '-n', 'ledger', '-f', sk]);
    expect(argv).toHaveLength(7); // and the message file, last
    expect(existsSync(`${planted}.ran`)).toBe(false);
  });

  it('a passphrase-protected key: ssh-keygen asks on the terminal, the user types it, the record is signed', async () => {
    const user = makeHome();
    const dir = gitdir();
    const key = await keygen(user.home, 'locked', 'ed25519', { passphrase: 'correct horse' });
    const { id } = await record(user, dir, { status: 'success', summary: 'to sign' });
    // A real terminal (a pty from util-linux `script`), the passphrase typed once it is asked.
    const command = `${process.execPath} ${BIN} sign ${id} --signing-key ${key.path} --json`;
    const result = await new Promise<{ code: number | null; screen: string }>((done) => {
      const child = spawn('script', ['-qefc', command, '/dev/null'], {
        cwd: dir,
        env: { ...process.env, ...user.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let screen = '';
      let typed = false;
      const seen = (chunk: Buffer) => {
        screen += chunk.toString('utf8');
        if (!typed && /Enter passphrase/.test(screen)) {
          typed = true;
          child.stdin.write('correct horse\n');
        }
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('close', (code) => done({ code, screen }));
    });
    expect(result.screen).toMatch(/Enter passphrase/);
    expect(result.code, result.screen).toBe(0);
    expect(await signers(user, dir, id)).toEqual([fingerprintOf(key)]);
  });

  it("no key configured: the agent's first key signs (ssh-add -L); no agent either is a usage error", async () => {
    const user = makeHome();
    const dir = gitdir();
    const agent = await startAgent(user.home);
    try {
      const key = await keygen(user.home, 'agent-key', 'ecdsa', { bits: 256 });
      await agent.add(key.path);
      const refused = await asUser(user, () =>
        recordHandoff({ cwd: dir, status: 'success', sign: true }).catch((e: unknown) => e),
      );
      expect(isLedgerError(refused, 'USAGE')).toBe(true); // SSH_AUTH_SOCK is empty for this user
      expect((refused as Error).message).toMatch(/no signing key/);
      const withAgent = { ...user, env: { ...user.env, SSH_AUTH_SOCK: agent.socket } };
      const made = await asUser(withAgent, () =>
        recordHandoff({ cwd: dir, status: 'success', summary: 'agent', sign: true }),
      );
      expect(await signers(user, dir, made.id)).toEqual([fingerprintOf(key)]);
    } finally {
      await agent.stop();
    }
  });
});
