/**
 * How big one message from the client may be: the stdio transport's limit (server.ts gives it
 * to the SDK's transport) and the bound the tools' input schemas are held under
 * (tool-args.ts), from one constant so the two cannot part again (red team, round nine: the
 * record tool's schema allowed a 16 MiB handoff, the transport dropped the session at 10 MiB).
 *
 * It is the SDK's own default, kept rather than raised: the SDK's reader joins each chunk it
 * reads onto what it holds, so reading a message costs the square of its size (measured on a
 * busy 2-core machine: 1 MiB 65 ms, 5 MiB 1.3 s, 10 MiB 4 s, 40 MiB 54 s). Raising it to hold
 * the largest call a 16 MiB handoff allows, every character escaped, would be about 100 MiB:
 * minutes of the server's only thread for one call.
 */

/** The most bytes one JSON-RPC message may take on standard input. */
export const MESSAGE_LIMIT_BYTES = 10 * 1024 * 1024;
