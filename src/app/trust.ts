/**
 * From the loaded policy to the pure verifier's trust material, and signing with the user's
 * key the way git does for `gpg.format=ssh`.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { SIGNATURE_NAMESPACE } from '../model/attestation.js';
import { LedgerError } from '../model/errors.js';
import { signMessage, type SignerSpec } from '../sign/index.js';
import { parseTrust, type Trust } from '../verify/signatures.js';
import { readUserGitConfig, type LoadedPolicy } from './local.js';

export function trustFrom(loaded: LoadedPolicy, now: Date): Trust | undefined {
  const signatures = loaded.policy.signatures;
  if (signatures === undefined || loaded.allowedSigners === undefined) return undefined;
  return parseTrust(loaded.allowedSigners.text, {
    required: signatures.required,
    roles: {
      ...(signatures.roles.producer === undefined ? {} : { producer: signatures.roles.producer }),
      ...(signatures.roles.auditor === undefined ? {} : { auditor: signatures.roles.auditor }),
    },
    now,
  });
}

/** What a verify run could not check, in words, for the report. */
export function policyNotes(loaded: LoadedPolicy, trust: Trust | undefined): string[] {
  const notes: string[] = [];
  if (loaded.source === 'default') {
    notes.push(
      'no policy (--policy FILE or `git config --global ledger.policy FILE`): the built-in default is in force — ' +
        'signatures are checked but no signer is trusted, and only witnesses of records made in this clone re-run',
    );
  } else if (trust === undefined) {
    notes.push(
      'the policy names no allowed_signers file: signatures are checked but no signer is trusted',
    );
  }
  for (const p of trust?.problems ?? [])
    notes.push(`allowed_signers line ${p.line}: ${p.message} (line not trusted)`);
  return notes;
}

/**
 * The signer, as git picks it for `gpg.format=ssh`: `--signing-key` first, else `user.signingKey`
 * from the user's global or system git config (a key file, a `.pub` whose private half is in
 * ssh-agent, or a `key::ssh-… ` literal), else the first key of ssh-agent. Never the
 * repository's config, which the agent can write.
 */
export async function resolveSigner(flagKey: string | undefined): Promise<SignerSpec> {
  const given = flagKey ?? (await readUserGitConfig('user.signingkey'));
  if (given === undefined || given === '') return { agent: true };
  if (given.startsWith('key::')) return { agent: true, publicKey: given.slice(5).trim() };
  if (/^(ssh-|ecdsa-|sk-)/.test(given)) return { agent: true, publicKey: given.trim() };
  const path = given.startsWith('~/') ? resolve(homedir(), given.slice(2)) : resolve(given);
  return { keyFile: path };
}

/** Whether `ledger.sign` in the user's global/system git config asks for signing by default. */
export async function signByDefault(): Promise<boolean> {
  const value = (await readUserGitConfig('ledger.sign'))?.toLowerCase();
  return value === 'true' || value === 'yes' || value === 'on' || value === '1';
}

/** Signs a ledger id (`sha256:<hex>`, no newline) in namespace `ledger`: armored SSHSIG text. */
export function signId(id: string, signer: SignerSpec): Promise<string> {
  return signMessage(new TextEncoder().encode(id), SIGNATURE_NAMESPACE, signer);
}

/** Reads an armored signature file given on the command line (`ledger sign --signature FILE`). */
export async function readSignatureFile(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new LedgerError(
      'INVALID_INPUT',
      `cannot read the signature file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  if (bytes.length > 64 * 1024) {
    throw new LedgerError(
      'INVALID_INPUT',
      `the signature file ${path} is ${bytes.length} bytes; an SSH signature is at most 64 KiB`,
    );
  }
  return bytes.toString('utf8');
}
