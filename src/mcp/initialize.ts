/**
 * The answer to a client's first message, `initialize`, without the MCP SDK (issue 21): loading
 * the SDK's bundle and evaluating its zod schemas was most of the time `ledger mcp` took to say
 * hello. `initializeReply` answers only a plain, well-formed request — exactly the members the
 * SDK's schemas define, of the types they accept — with the bytes the SDK's `Server` would
 * write for it (`_oninitialize`, then `serializeMessage`). Anything else is undefined: the SDK
 * reads it as it is and answers it in its own words. test/mcp/early-initialize.test.ts compares
 * both answers byte for byte, and the server compares its own answer with the one sent when it
 * is handed the request (server.ts).
 */
import { SERVER_CAPABILITIES, SERVER_INFO, SERVER_INSTRUCTIONS } from './server-info.js';

/** The SDK's LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS (its types.ts). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

export interface InitializeReply {
  id: string | number;
  /** The line written: the JSON-RPC response and a newline. */
  text: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object with only the given members (some of them optional). */
function hasOnly(value: Json, required: readonly string[], optional: readonly string[] = []) {
  const keys = Object.keys(value);
  return (
    required.every((key) => Object.hasOwn(value, key)) &&
    keys.every((key) => required.includes(key) || optional.includes(key))
  );
}

const isEmptyObject = (value: unknown) => isObject(value) && Object.keys(value).length === 0;

/**
 * The client capabilities whose reading by the SDK's schema is certain: the standard ones,
 * declared empty (as clients declare them), and `roots` with a boolean `listChanged`.
 */
function plainCapabilities(value: unknown): boolean {
  if (!isObject(value)) return false;
  return Object.entries(value).every(([key, capability]) => {
    if (key === 'roots')
      return (
        isObject(capability) &&
        hasOnly(capability, [], ['listChanged']) &&
        (capability.listChanged === undefined || typeof capability.listChanged === 'boolean')
      );
    return ['sampling', 'elicitation', 'experimental', 'extensions', 'tasks'].includes(key)
      ? isEmptyObject(capability)
      : false;
  });
}

/** `clientInfo` with a string name and version, and only the SDK's optional string members. */
function plainClientInfo(value: unknown): boolean {
  if (!isObject(value) || !hasOnly(value, ['name', 'version'], OPTIONAL_INFO)) return false;
  return Object.values(value).every((member) => typeof member === 'string');
}
const OPTIONAL_INFO = ['title', 'websiteUrl', 'description'];

/** A JSON-RPC id the SDK accepts as it is: a string or a safe integer. */
const plainId = (id: unknown): id is string | number =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

/**
 * The SDK's answer to `line` (one line of input, without its newline: the SDK's ReadBuffer
 * strips a final carriage return and decodes UTF-8 the same way) when it is a plain
 * `initialize` request; undefined for anything else.
 */
export function initializeReply(line: string): InitializeReply | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(message) || !hasOnly(message, ['jsonrpc', 'id', 'method', 'params']))
    return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || method !== 'initialize' || !plainId(id) || !isObject(params))
    return undefined;
  if (!hasOnly(params, ['protocolVersion', 'capabilities', 'clientInfo'])) return undefined;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== 'string') return undefined;
  if (!plainCapabilities(capabilities) || !plainClientInfo(clientInfo)) return undefined;
  // Server._oninitialize's result, in Protocol._onrequest's response, as serializeMessage writes it.
  const result = {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)
      ? protocolVersion
      : LATEST_PROTOCOL_VERSION,
    capabilities: SERVER_CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: SERVER_INSTRUCTIONS,
  };
  return { id, text: `${JSON.stringify({ result, jsonrpc: '2.0', id })}\n` };
}
