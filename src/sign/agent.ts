/**
 * A minimal ssh-agent client (draft-miller-ssh-agent): list identities and sign. One request
 * per connection, over the unix socket the caller names (usually `$SSH_AUTH_SOCK`).
 */
import { createConnection } from 'node:net';
import { LedgerError } from '../model/errors.js';
import { readKeyTypeOfBlob, type RawSigner } from './keys.js';
import { SshReader, concat, sshString, uint32 } from './wire.js';

const SSH_AGENT_FAILURE = 5;
const SSH2_AGENTC_REQUEST_IDENTITIES = 11;
const SSH2_AGENT_IDENTITIES_ANSWER = 12;
const SSH2_AGENTC_SIGN_REQUEST = 13;
const SSH2_AGENT_SIGN_RESPONSE = 14;
const SSH_AGENT_RSA_SHA2_512 = 4;
/** OpenSSH's own cap on an agent message (AGENT_MAX_LEN). */
const MAX_REPLY = 256 * 1024;
/** Long enough for a key added with `ssh-add -c`, whose use the user must confirm. */
const DEFAULT_TIMEOUT_MS = 60_000;

export interface AgentOptions {
  /** Path of the agent's unix socket. */
  socket: string;
  timeoutMs?: number;
}

export interface AgentIdentity {
  publicKey: Uint8Array;
  type: string;
  comment: string;
}

/** The keys the agent holds (SSH2_AGENTC_REQUEST_IDENTITIES). Throws USAGE if unreachable. */
export async function listAgentIdentities(options: AgentOptions): Promise<AgentIdentity[]> {
  const reply = await request(options, new Uint8Array([SSH2_AGENTC_REQUEST_IDENTITIES]));
  return parseIdentitiesAnswer(reply);
}

/** Asks the agent to sign `data` with the key `publicKey`; returns the raw signature blob. */
export async function signWithAgent(
  options: AgentOptions,
  publicKey: Uint8Array,
  data: Uint8Array,
): Promise<Uint8Array> {
  // Without the flag an agent signs RSA with SHA-1 (ssh-rsa), which SSHSIG verifiers refuse.
  const flags = readKeyTypeOfBlob(publicKey) === 'ssh-rsa' ? SSH_AGENT_RSA_SHA2_512 : 0;
  const reply = await request(
    options,
    concat(
      new Uint8Array([SSH2_AGENTC_SIGN_REQUEST]),
      sshString(publicKey),
      sshString(data),
      uint32(flags),
    ),
  );
  return parseSignResponse(reply);
}

/** A RawSigner that signs through the agent with one of its keys. */
export function agentSigner(options: AgentOptions, publicKey: Uint8Array): RawSigner {
  return { publicKey, sign: (data) => signWithAgent(options, publicKey, data) };
}

/** Parses an agent reply to REQUEST_IDENTITIES (type byte included). Throws. */
export function parseIdentitiesAnswer(reply: Uint8Array): AgentIdentity[] {
  const reader = new SshReader(reply, 'ssh-agent identities reply');
  const type = reader.byte();
  if (type === SSH_AGENT_FAILURE) {
    throw new LedgerError('USAGE', 'ssh-agent refused to list its keys');
  }
  if (type !== SSH2_AGENT_IDENTITIES_ANSWER) {
    throw reader.error(`message type ${type}, expected ${SSH2_AGENT_IDENTITIES_ANSWER}`);
  }
  const count = reader.uint32();
  // Each identity takes at least 8 bytes, so a count larger than that is a lie, not a loop.
  if (count > reader.remaining / 8) throw reader.error(`claims ${count} keys`);
  const identities: AgentIdentity[] = [];
  for (let i = 0; i < count; i++) {
    const publicKey = reader.string();
    const comment = reader.text();
    identities.push({ publicKey, type: readKeyTypeOfBlob(publicKey), comment });
  }
  reader.end();
  return identities;
}

/** Parses an agent reply to SIGN_REQUEST (type byte included). Throws. */
export function parseSignResponse(reply: Uint8Array): Uint8Array {
  const reader = new SshReader(reply, 'ssh-agent sign reply');
  const type = reader.byte();
  if (type === SSH_AGENT_FAILURE) {
    throw new LedgerError('USAGE', 'ssh-agent refused to sign', {
      hint: 'check that the key is still loaded (`ssh-add -l`) and confirm the request if the agent asks',
    });
  }
  if (type !== SSH2_AGENT_SIGN_RESPONSE) {
    throw reader.error(`message type ${type}, expected ${SSH2_AGENT_SIGN_RESPONSE}`);
  }
  const signature = reader.string();
  reader.end();
  return signature;
}

function request(options: AgentOptions, body: Uint8Array): Promise<Uint8Array> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const socket = createConnection(options.socket);
    const finish = (error: LedgerError | undefined, reply?: Uint8Array): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) reject(error);
      else resolve(reply ?? new Uint8Array(0));
    };
    const timer = setTimeout(() => {
      finish(
        new LedgerError(
          'USAGE',
          `ssh-agent at ${options.socket} did not answer within ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    socket.on('connect', () => socket.write(concat(uint32(body.length), body)));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < 4) return;
      const all = Buffer.concat(chunks);
      const length = all.readUInt32BE(0);
      if (length === 0 || length > MAX_REPLY) {
        finish(
          new LedgerError(
            'INVALID_INPUT',
            `ssh-agent reply of ${length} bytes, expected 1..${MAX_REPLY}`,
          ),
        );
        return;
      }
      if (all.length >= 4 + length) finish(undefined, new Uint8Array(all.subarray(4, 4 + length)));
    });
    socket.on('error', (cause) => {
      finish(
        new LedgerError('USAGE', `cannot reach ssh-agent at ${options.socket}: ${cause.message}`, {
          cause,
          hint: 'start ssh-agent and add the key with ssh-add, or sign with a key file',
        }),
      );
    });
    socket.on('close', () => {
      finish(
        new LedgerError('USAGE', `ssh-agent at ${options.socket} closed the connection early`),
      );
    });
  });
}
