/**
 * From the loaded policy to the pure verifier's trust material, and signing with the user's
 * key the way git does for `gpg.format=ssh`.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { FormatOptions } from '../../model/format-options.js';
import { recorderMessage, SIGNATURE_NAMESPACE } from '../../model/leaf-vocabulary.js';
import { LedgerError } from '../../model/errors.js';
import { checkRegularFile, printableLine } from '../../paths/index.js';
import { parsePublicKeyLine, signWithSshKeygen, type SshKeygenSigner } from '../../sign/index.js';
import { USER_SCOPES, type ConfigScope } from '../../store/git/config.js';
import type { RepoPaths } from '../../store/git/repo.js';
import { parseTrust, type Trust } from '../../verify/signatures.js';
import type { LoadedPolicy } from './local.js';

/**
 * The policy's format gates, as the formats' parse context takes them. `record` parses with
 * them, and `verify` must re-derive with the same ones, or the two disagree.
 */
export function formatOptionsFrom(loaded: LoadedPolicy): FormatOptions {
  return loaded.policy.formats ?? {};
}

export function trustFrom(loaded: LoadedPolicy, now: Date): Trust | undefined {
  const signatures = loaded.policy.signatures;
  if (signatures === undefined || loaded.allowedSigners === undefined) return undefined;
  return parseTrust(loaded.allowedSigners.text, {
    required: signatures.required,
    roles: {
      ...(signatures.roles.producer === undefined ? {} : { producer: signatures.roles.producer }),
      ...(signatures.roles.auditor === undefined ? {} : { auditor: signatures.roles.auditor }),
      ...(signatures.roles.reviewer === undefined ? {} : { reviewer: signatures.roles.reviewer }),
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
 * The signer, picked as `git commit -S` picks it for `gpg.format=ssh`:
 *   - the key: `--signing-key`, else `user.signingKey` read as git reads it — every scope, the
 *     repository's own included (a repository may name its signing key; which key signs is no
 *     question of trust: verify trusts a signature only through the auditor's allowed_signers);
 *     `key::…` (or a line starting `ssh-`) is a public key the agent must hold, anything else a
 *     file path (`~/` expanded; relative to the work tree's top, as git runs; a flag's value
 *     relative to where the user is). Without one: the first key of `gpg.ssh.defaultKeyCommand`,
 *     else of `ssh-add -L`.
 *   - with `keyScopes: 'user'` (an unattended record: the MCP server's, a hook's), `user.signingKey`
 *     only from the user's own (global/system) config. There the agent wrote the repository's
 *     config, and the key chooses whom the record reads as recorded by: a repository naming
 *     another of the user's keys (a CI or release key, any key in ssh-agent) made the agent's
 *     records read as signed by that identity (red team, round nine). A person typing
 *     `record --sign` chose the repository, so there git's reading stands.
 *   - the program: `gpg.ssh.program`, else `ssh-keygen`. It and `gpg.ssh.defaultKeyCommand` name
 *     programs, so only the user's own (global/system) config may set them.
 */
export async function resolveSigner(
  repo: RepoPaths,
  flagKey: string | undefined,
  cwd: string,
  options: { keyScopes?: 'user' | 'all' } = {},
): Promise<SshKeygenSigner> {
  const program = repo.config.get('gpg.ssh.program', USER_SCOPES) ?? 'ssh-keygen';
  const scopes = options.keyScopes === 'user' ? USER_SCOPES : undefined;
  const given = flagKey ?? repo.config.get('user.signingkey', scopes);
  if (given === undefined || given.trim() === '') {
    return { program, key: { literal: await defaultKey(repo, scopes) } };
  }
  if (given.startsWith('key::')) return { program, key: { literal: given.slice(5).trim() } };
  if (given.startsWith('ssh-')) return { program, key: { literal: given.trim() } };
  const base = flagKey === undefined ? repo.root : cwd;
  const path = given.startsWith('~/') ? resolve(homedir(), given.slice(2)) : resolve(base, given);
  await checkKeyFiles(path, flagKey === undefined ? { repo, scopes } : undefined);
  return { program, key: { file: path } };
}

/** An SSH private key is a few KiB (16384-bit RSA: about 13); nothing real comes near this. */
const KEY_FILE_MAX_BYTES = 1024 * 1024;

/**
 * ssh-keygen opens the key it is given, its `.pub` and (for a `.pub`) the private key beside
 * it, blocking: a FIFO, a device or a huge file there — which the repository's config can name
 * — would hang signing. Each of them that exists must be a regular file within the cap; a
 * missing one is ssh-keygen's to report.
 */
async function checkKeyFiles(
  path: string,
  named: { repo: RepoPaths; scopes: ReadonlySet<ConfigScope> | undefined } | undefined,
): Promise<void> {
  const companions = path.endsWith('.pub') ? [path, path.slice(0, -4)] : [path, `${path}.pub`];
  for (const file of companions) {
    const read = await checkRegularFile(file, { maxBytes: KEY_FILE_MAX_BYTES });
    if (read.ok || read.reason === 'missing') continue;
    const origin = named?.repo.config.all('user.signingkey', named.scopes).at(-1)?.origin;
    throw new LedgerError(
      'USAGE',
      `cannot sign with ${file}${origin === undefined ? '' : ` (user.signingKey, set in ${origin})`}: it is ${read.problem}`,
      {
        hint: 'Name a key file (a private key, or a .pub whose private key lies beside it) with --signing-key FILE or git config user.signingKey FILE.',
      },
    );
  }
}

/**
 * git's gpg.ssh.defaultKeyCommand (split on spaces, as git does), else `ssh-add -L`. `scopes`:
 * where user.signingKey was looked for, when not everywhere (said if nothing is found).
 */
async function defaultKey(
  repo: RepoPaths,
  scopes: ReadonlySet<ConfigScope> | undefined,
): Promise<string> {
  const configured = repo.config.get('gpg.ssh.defaultkeycommand', USER_SCOPES);
  const [command, ...args] = (configured ?? 'ssh-add -L').split(/\s+/).filter(Boolean);
  const output = await new Promise<{ code: number | null; stdout: string }>((done) => {
    const child = spawn(command ?? 'ssh-add', args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.on('error', () => done({ code: null, stdout: '' }));
    child.on('close', (code) => done({ code, stdout }));
  });
  const first =
    output.stdout
      .split('\n')[0]
      ?.replace(/^key::/, '')
      .trim() ?? '';
  let valid = false;
  try {
    parsePublicKeyLine(first);
    valid = output.code === 0;
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new LedgerError(
      'USAGE',
      `no signing key: user.signingKey is not set${scopes === undefined ? '' : ' in your global or system git config (a repository’s own is not read for a record an agent makes)'}, and ${configured === undefined ? 'ssh-agent offers no key (ssh-add -L)' : `gpg.ssh.defaultKeyCommand (${configured}) gave none`}`,
      {
        hint: 'Name a key with --signing-key FILE or git config user.signingKey FILE (as for git commit -S), or add one to ssh-agent with ssh-add.',
      },
    );
  }
  return first;
}

// Whether `ledger.sign` in the user's global/system git config asks for signing by default.
export { signByDefault } from './sign-setting.js';

/** Signs a ledger id (`sha256:<hex>`, no newline) in namespace `ledger`: armored SSHSIG text. */
export function signId(id: string, signer: SshKeygenSigner): Promise<string> {
  return signMessage(id, signer);
}

/** A recorder signature over a record id (`recorderMessage`): "recorded by <signer>'s ledger". */
export function signAsRecorder(id: string, signer: SshKeygenSigner): Promise<string> {
  return signMessage(recorderMessage(id), signer);
}

function signMessage(message: string, signer: SshKeygenSigner): Promise<string> {
  const timeoutMs = signTimeoutMs();
  return signWithSshKeygen(new TextEncoder().encode(message), SIGNATURE_NAMESPACE, signer, {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    // A FIDO key asks for a touch: say so on the terminal, escaped (the key's comment is text
    // from a file the repository's config may have named).
    onNotice: (line) => {
      // Escaped here; signing runs below the command base (record, sign, verify --record) and a
      // FIDO touch prompt must reach the terminal while ssh-keygen waits.
      // eslint-disable-next-line no-restricted-syntax
      if (process.stderr.isTTY) process.stderr.write(`${printableLine(line)}\n`);
    },
  });
}

/** How long ssh-keygen may take with no terminal to prompt on (a FIDO touch fits well inside). */
const SIGN_TIMEOUT_MS = 120_000;

/**
 * No limit where the user can answer a prompt; else SIGN_TIMEOUT_MS, or LEDGER_SIGN_TIMEOUT_MS
 * (the tests' short wait; the user's environment, which the agent does not set).
 */
function signTimeoutMs(): number | undefined {
  if (process.stdin.isTTY === true || process.stderr.isTTY === true) return undefined;
  const raw = process.env['LEDGER_SIGN_TIMEOUT_MS'];
  const given = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
  return Number.isFinite(given) && given > 0 ? given : SIGN_TIMEOUT_MS;
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
