/**
 * `ledger mcp`'s start (issue 21): the client's first message is answered here when it is a
 * plain `initialize` (initialize.ts), before the MCP SDK is loaded; the SDK is loaded only when
 * more input comes, and is then handed the whole input from its first byte — the `initialize`
 * too, so that it keeps the client's capabilities and name as if it had answered it (its
 * duplicate answer is dropped: server.ts). Input that ends right after `initialize` never loads
 * the SDK: there is nothing left for it to answer. Anything but a plain `initialize` first —
 * another method, a batch, malformed JSON, a member this module does not reproduce — is handed
 * to the SDK unanswered, and the SDK answers it as it always did.
 *
 * Standard input is paused and the bytes read so far put back in front of what has not been
 * read (`unshift`), so the SDK reads every byte in order, however the client split its writes.
 */
import type { McpServerOptions } from './server.js';
import { watchClientGone } from './client-gone.js';
import { initializeReply, type InitializeReply } from './initialize.js';

/** How much input without a newline is read before the SDK is left to judge it (and refuse it). */
const FIRST_LINE_LIMIT = 1024 * 1024;

/** What happened before the SDK was needed. */
type Start =
  /** Input ended (or the stream closed) with nothing for the SDK to answer. */
  | { ended: true }
  /** The SDK takes over; `reply` is the answer already written to `initialize`, if any. */
  | { ended: false; reply: InitializeReply | undefined };

/** Reads standard input up to the point where the SDK is needed, answering `initialize`. */
export function readStart(
  stdin: NodeJS.ReadStream = process.stdin,
  stdout: NodeJS.WriteStream = process.stdout,
): Promise<Start> {
  return new Promise((resolve) => {
    let read: Buffer = Buffer.alloc(0);
    let reply: InitializeReply | undefined;
    const done = (start: Start) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      resolve(start);
    };
    const handOver = () => {
      stdin.pause();
      stdin.unshift(read);
      done({ ended: false, reply });
    };
    function onData(chunk: Buffer) {
      read = read.length === 0 ? chunk : Buffer.concat([read, chunk]);
      if (reply !== undefined) return handOver(); // what follows `initialize` is the SDK's
      const newline = read.indexOf(0x0a);
      if (newline === -1) {
        if (read.length > FIRST_LINE_LIMIT) handOver();
        return;
      }
      // As the SDK's ReadBuffer reads a line.
      reply = initializeReply(read.toString('utf8', 0, newline).replace(/\r$/, ''));
      if (reply === undefined) return handOver();
      stdout.write(reply.text);
      if (newline + 1 < read.length) handOver();
    }
    // server.ts ends the session on either. An error the SDK's transport only reports (to no
    // one): so it is ignored here too, and stays ignored while the SDK loads.
    const onEnd = () => done({ ended: true });
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('close', onEnd);
    stdin.on('error', () => {});
  });
}

/** Serves until the client closes standard input. */
export async function startMcp(options: McpServerOptions): Promise<void> {
  // From the first write (the answer to initialize): a client gone is not a crash.
  const client = watchClientGone(process.stdout, (line) =>
    // eslint-disable-next-line no-restricted-syntax
    process.stderr.write(line),
  );
  const start = await readStart();
  if (start.ended) return;
  const { serveMcp } = await import('./server.js');
  await serveMcp({ ...options, early: { reply: start.reply, client } });
}
