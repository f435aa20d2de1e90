/**
 * SSH signatures in git's `gpg.format=ssh` format (OpenSSH SSHSIG): sign with a key file or
 * ssh-agent, verify against the bytes given, and decide trust with an `allowed_signers` file.
 */
import { LedgerError } from '../model/errors.js';
import { agentSigner, listAgentIdentities, type AgentIdentity } from './agent.js';
import {
  fingerprint,
  formatPublicKey,
  isSupportedKeyType,
  parsePublicKeyLine,
  readKeyFile,
  signRaw,
  type RawSigner,
  type SshPrivateKey,
} from './keys.js';
import { createSignature } from './sshsig.js';
import { bytesEqual } from './wire.js';

export {
  findSigner,
  isAllowedSigner,
  matchPatternList,
  namedPrincipals,
  parseAllowedSigners,
  type AllowedSigner,
  type AllowedSignersProblem,
} from './allowed-signers.js';
export { listAgentIdentities, type AgentIdentity, type AgentOptions } from './agent.js';
export {
  fingerprint,
  formatPublicKey,
  parseKeyFile,
  parsePublicKeyLine,
  readKeyFile,
  type KeyFile,
  type RawSigner,
  type SshPrivateKey,
} from './keys.js';
export {
  armorSignature,
  createSignature,
  dearmorSignature,
  parseSignature,
  toSignedData,
  verifySignature,
  type SshSignature,
  type VerifyResult,
} from './sshsig.js';

/**
 * Who signs. Like git's `user.signingKey`: `keyFile` names a private key (read and used
 * directly) or a `.pub` / passphrase-protected key whose private half is in ssh-agent.
 * `agent` signs with the agent's key matching `publicKey` (`type base64`, or git's
 * `key::type base64`), or its first usable key. `socket` defaults to `$SSH_AUTH_SOCK`.
 */
export type SignerSpec =
  { keyFile: string; socket?: string } | { agent: true; publicKey?: string; socket?: string };

/**
 * Signs `message` in `namespace` and returns armored `-----BEGIN SSH SIGNATURE-----` text,
 * as `ssh-keygen -Y sign -n NAMESPACE -f KEY` writes it. Throws LedgerError USAGE when the
 * key cannot be used or the agent is unavailable.
 */
export async function signMessage(
  message: Uint8Array,
  namespace: string,
  signer: SignerSpec,
): Promise<string> {
  return createSignature(message, namespace, await resolveSigner(signer));
}

async function resolveSigner(spec: SignerSpec): Promise<RawSigner> {
  const socket = spec.socket ?? process.env['SSH_AUTH_SOCK'];
  if ('keyFile' in spec) {
    const file = await readKeyFile(spec.keyFile);
    if (file.kind === 'private') return keySigner(file.key);
    const why =
      file.kind === 'encrypted'
        ? `${spec.keyFile} is passphrase-protected (${file.cipher}); ledger signs with such keys only through ssh-agent`
        : `${spec.keyFile} is a public key; its private half must be in ssh-agent`;
    return agentKey(socket, file.publicKey, why, `ssh-add ${spec.keyFile.replace(/\.pub$/, '')}`);
  }
  if (spec.publicKey !== undefined) {
    const { blob } = parsePublicKeyLine(spec.publicKey);
    return agentKey(socket, blob, 'signing with a public key needs ssh-agent', 'ssh-add KEY');
  }
  const path = requireSocket(socket, 'ssh-add KEY');
  const identities = await listAgentIdentities({ socket: path });
  const usable = identities.find((identity) => isSupportedKeyType(identity.type));
  if (usable === undefined) {
    throw new LedgerError('USAGE', `ssh-agent holds no usable key (${describe(identities)})`, {
      hint: 'add an ed25519, ecdsa or rsa key with ssh-add',
    });
  }
  return agentSigner({ socket: path }, usable.publicKey);
}

function keySigner(key: SshPrivateKey): RawSigner {
  return {
    publicKey: key.publicKey,
    sign: async (data) => signRaw(key.type, key.privateKey, data),
  };
}

async function agentKey(
  socket: string | undefined,
  publicKey: Uint8Array,
  why: string,
  addCommand: string,
): Promise<RawSigner> {
  const path = requireSocket(socket, addCommand, why);
  const identities = await listAgentIdentities({ socket: path });
  if (!identities.some((identity) => bytesEqual(identity.publicKey, publicKey))) {
    throw new LedgerError(
      'USAGE',
      `${why}, and the agent does not hold ${formatPublicKey(publicKey).slice(0, 40)}… (${fingerprint(publicKey)})`,
      { hint: `add it with \`${addCommand}\`` },
    );
  }
  return agentSigner({ socket: path }, publicKey);
}

function requireSocket(socket: string | undefined, addCommand: string, why?: string): string {
  if (socket === undefined || socket === '') {
    throw new LedgerError(
      'USAGE',
      `${why === undefined ? '' : `${why}, but `}no ssh-agent is available (SSH_AUTH_SOCK is not set)`,
      { hint: `start ssh-agent and run \`${addCommand}\`, or sign with an unencrypted key file` },
    );
  }
  return socket;
}

function describe(identities: readonly AgentIdentity[]): string {
  return identities.length === 0 ? 'none' : identities.map((identity) => identity.type).join(', ');
}
