/**
 * Real OpenSSH for the signature tests: ssh-keygen in temp dirs and a private ssh-agent.
 * CI needs the `openssh-client` package.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir as makeTempDir } from '../helpers/env.js';

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(
  command: string,
  args: readonly string[],
  options: { input?: string | Uint8Array; env?: Record<string, string>; cwd?: string } = {},
): Run {
  const result = spawnSync(command, args, {
    input: options.input ?? '',
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = makeTempDir('ledger-sign-');
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface Key {
  path: string;
  pub: string;
  /** `type base64` without the comment. */
  publicKey: string;
}

export async function keygen(
  dir: string,
  name: string,
  type: 'ed25519' | 'ecdsa' | 'rsa',
  extra: { bits?: number; passphrase?: string } = {},
): Promise<Key> {
  const path = join(dir, name);
  const args = ['-q', '-t', type, '-N', extra.passphrase ?? '', '-C', `${name}@test`, '-f', path];
  if (extra.bits !== undefined) args.push('-b', String(extra.bits));
  const result = run('ssh-keygen', args);
  if (result.status !== 0) throw new Error(`ssh-keygen failed: ${result.stderr}`);
  const pub = (await readFile(`${path}.pub`, 'utf8')).trim();
  return { path, pub, publicKey: pub.split(' ').slice(0, 2).join(' ') };
}

/** `ssh-keygen -Y sign`: the armored signature over `message`. */
export async function sshSign(dir: string, key: string, namespace: string, message: Uint8Array) {
  const msg = join(dir, `msg-${Math.random().toString(36).slice(2)}`);
  await writeFile(msg, message);
  const result = run('ssh-keygen', ['-Y', 'sign', '-n', namespace, '-f', key, msg]);
  if (result.status !== 0) throw new Error(`ssh-keygen -Y sign failed: ${result.stderr}`);
  return readFile(`${msg}.sig`, 'utf8');
}

/** `ssh-keygen -Y verify`: true when OpenSSH accepts the signature for `principal`. */
export async function sshVerify(
  dir: string,
  allowedSigners: string,
  principal: string,
  namespace: string,
  signature: string,
  message: Uint8Array,
  extraArgs: readonly string[] = [],
): Promise<boolean> {
  const id = Math.random().toString(36).slice(2);
  const signers = join(dir, `allowed-${id}`);
  const sig = join(dir, `sig-${id}`);
  await writeFile(signers, allowedSigners);
  await writeFile(sig, signature);
  const result = run(
    'ssh-keygen',
    ['-Y', 'verify', '-f', signers, '-I', principal, '-n', namespace, '-s', sig, ...extraArgs],
    { input: message },
  );
  return result.status === 0;
}

export interface Agent {
  socket: string;
  add(keyPath: string, passphrase?: string): Promise<void>;
  stop(): Promise<void>;
}

/** A private ssh-agent in the foreground (-D), on a socket in `dir`. */
export async function startAgent(dir: string): Promise<Agent> {
  const socket = join(dir, 'agent.sock');
  const child: ChildProcess = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (!existsSync(socket)) {
    if (Date.now() > deadline) throw new Error('ssh-agent did not create its socket');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    socket,
    async add(keyPath, passphrase) {
      const env: Record<string, string> = { SSH_AUTH_SOCK: socket };
      if (passphrase !== undefined) {
        // ssh-add reads a passphrase from a terminal; SSH_ASKPASS_REQUIRE=force makes it ask
        // this script instead.
        const askpass = join(dir, 'askpass.sh');
        await writeFile(askpass, `#!/bin/sh\necho '${passphrase}'\n`);
        await chmod(askpass, 0o755);
        Object.assign(env, { SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' });
      }
      const result = run('ssh-add', ['-q', keyPath], { env });
      if (result.status !== 0) throw new Error(`ssh-add failed: ${result.stderr}`);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
