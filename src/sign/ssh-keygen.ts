/**
 * Signing the way git signs with `gpg.format=ssh`: by running `ssh-keygen -Y sign`. So every
 * key git can sign with, ledger can: a private key file, a `.pub` whose private half lies
 * beside it or is in ssh-agent, a passphrase-protected key (ssh-keygen asks on the terminal it
 * inherits, or through SSH_ASKPASS), a FIDO `sk-` key (ssh-keygen talks to the authenticator),
 * and a `key::` literal held by the agent (`-U`). No private key is ever read by ledger.
 *
 * The result is checked in-process before it is returned (sshsig.ts): a program that prints
 * something else than a signature over this message in this namespace is an error now, not
 * an unverifiable signature later.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerError } from '../model/errors.js';
import { verifySignature } from './sshsig.js';

export interface SshKeygenSigner {
  /** The program: the user's own `gpg.ssh.program`, else `ssh-keygen` (as git). */
  program: string;
  /** A key file (git's `user.signingKey` path), or a public key that the agent must hold. */
  key: { file: string } | { literal: string };
}

export interface SignOptions {
  /**
   * Lines ssh-keygen writes for the user while it works (a FIDO key's "Confirm user presence
   * for key …"). Passphrase prompts go to the terminal itself, not here.
   */
  onNotice?: (line: string) => void;
  /**
   * Kill the program after this long. For runs with no terminal: there, a prompt for a
   * passphrase (or a touch no one gives) would wait forever.
   */
  timeoutMs?: number;
}

/** Signs `message` in `namespace`; armored SSHSIG text. Throws LedgerError USAGE on failure. */
export async function signWithSshKeygen(
  message: Uint8Array,
  namespace: string,
  signer: SshKeygenSigner,
  options: SignOptions = {},
): Promise<string> {
  if (namespace === '') throw new LedgerError('USAGE', 'an SSH signature needs a namespace');
  const dir = await mkdtemp(join(tmpdir(), 'ledger-sign-'));
  try {
    const file = join(dir, 'message');
    await writeFile(file, message, { mode: 0o600 });
    const args = ['-Y', 'sign', '-n', namespace];
    if ('file' in signer.key) {
      args.push('-f', signer.key.file);
    } else {
      // As git does for a literal key: its public half in a file, the signature from the agent.
      const pub = join(dir, 'key.pub');
      await writeFile(pub, `${signer.key.literal.trim()}\n`, { mode: 0o600 });
      args.push('-f', pub, '-U');
    }
    args.push(file);
    const run = await runProgram(signer.program, args, options);
    const armored =
      run.code === 0 ? await readFile(`${file}.sig`, 'utf8').catch(() => undefined) : undefined;
    if (armored === undefined) throw signFailure(signer, run);
    const checked = verifySignature(armored, message, namespace);
    if (!checked.ok) {
      throw new LedgerError(
        'USAGE',
        `${signer.program} produced a signature that does not verify over the message: ${checked.reason}`,
        { hint: 'Check gpg.ssh.program in your git config: it must behave as ssh-keygen -Y sign.' },
      );
    }
    return armored;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface ProgramRun {
  code: number | null;
  stderr: string;
  missing?: boolean;
  timedOutMs?: number;
}

function runProgram(program: string, args: string[], options: SignOptions): Promise<ProgramRun> {
  return new Promise((resolve) => {
    // stdin is /dev/null, as git gives it: a passphrase is read from the controlling terminal
    // (or SSH_ASKPASS), never from whatever ledger's own stdin is.
    const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, options.timeoutMs);
    let stderr = '';
    let pending = '';
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stderr += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (isNotice(line)) options.onNotice?.(line);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: null, stderr: error.message, missing: error.code === 'ENOENT' });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(
        timedOut && options.timeoutMs !== undefined
          ? { code: null, stderr, timedOutMs: options.timeoutMs }
          : { code, stderr },
      );
    });
  });
}

/** What the user must see while signing; the rest (file names) is noise. */
function isNotice(line: string): boolean {
  return line.trim() !== '' && !/^(Signing file|Write signature to) /.test(line);
}

function signFailure(signer: SshKeygenSigner, run: ProgramRun): LedgerError {
  const key = 'file' in signer.key ? signer.key.file : `key::${signer.key.literal.slice(0, 40)}…`;
  if (run.missing) {
    return new LedgerError('USAGE', `cannot sign: ${signer.program} was not found`, {
      hint: 'Install OpenSSH (Debian: openssh-client), or name the program with git config --global gpg.ssh.program.',
    });
  }
  if (run.timedOutMs !== undefined) {
    return new LedgerError(
      'USAGE',
      `cannot sign: ${signer.program} -Y sign did not finish within ${run.timedOutMs / 1000} s, and there is no terminal to answer a prompt on`,
      {
        hint: 'Sign from a terminal, load the key into ssh-agent first (ssh-add KEY), or use a key without a passphrase.',
      },
    );
  }
  const said = run.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^(Signing file|Write signature to) /.test(l))
    .slice(-3)
    .join(' / ');
  return new LedgerError(
    'USAGE',
    `${signer.program} -Y sign with ${key} failed${run.code === null ? '' : ` (exit ${run.code})`}: ${said || 'no message'}`,
    {
      hint:
        'file' in signer.key
          ? 'Check the key (user.signingKey or --signing-key): a private key file, or a .pub whose private key lies beside it or is in ssh-agent (ssh-add KEY).'
          : 'A key:: literal signs through ssh-agent: add the key with ssh-add, or name a key file instead.',
    },
  );
}
