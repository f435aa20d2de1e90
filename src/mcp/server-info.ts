/**
 * What `ledger mcp` says about itself in its answer to `initialize`: one definition for the SDK
 * server (server.ts) and for the answer written before the SDK is loaded (initialize.ts), so the
 * two cannot drift apart. Imports nothing of the SDK.
 */
import { LEDGER_VERSION } from '../model/version.js';

export const SERVER_INFO = { name: 'ledger', title: 'handoff ledger', version: LEDGER_VERSION };

export const SERVER_CAPABILITIES = { tools: {} };

export const SERVER_INSTRUCTIONS =
  'A Git-native ledger of agent handoffs. Call `record` with your handoff when you finish a run; `verify`, `show` and `log` read what is recorded. Every result carries the CLI exit code: 0 ok, 1 a claim was contradicted, 2 bad input (nothing written), 3 damaged ledger data.';
