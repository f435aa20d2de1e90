/**
 * `ledger mcp`: a Model Context Protocol server over stdio, so an agent can record its own
 * handoffs and read the ledger through tool calls. The SDK is loaded only here (and this
 * module only by start.ts, once the client has sent more than `initialize`), so no other
 * command pays for it at start-up.
 *
 * Standard output belongs to the protocol: nothing else may write there while it runs.
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  Server,
  StdioServerTransport,
} from './sdk.js';
import { CallQueueFull, createCallQueue } from './call-queue.js';
import { watchClientGone, type ClientGone } from './client-gone.js';
import { createDrain } from './drain.js';
import type { InitializeReply } from './initialize.js';
import { MESSAGE_LIMIT_BYTES } from './message-limit.js';
import { SERVER_CAPABILITIES, SERVER_INFO, SERVER_INSTRUCTIONS } from './server-info.js';
import type { ToolContext } from './tools.js';
import { readOnlyWhileAnswersAreRead } from './unread-answers.js';
import { answerUnreadableLines } from './unreadable-lines.js';

/**
 * The tools and the library behind them, loaded on the first request that needs them: a client
 * waits for the answer to `initialize` before it sends anything else, and that answer needs
 * neither (issue 21: the server's start-up paid for every format, zod schema and git module
 * before it could say hello).
 */
async function loadTools(cwd: string) {
  const [tools, { openLedger }] = await Promise.all([
    import('./tools.js'),
    import('../library.js'),
  ]);
  return { tools, ledger: openLedger({ cwd }) };
}

export interface McpServerOptions {
  cwd: string;
  /** Witness commands the record tool runs (the user's, from the server's command line). */
  witnesses: readonly string[];
  witnessTimeoutSeconds?: number;
  /** `--sign` (and `--signing-key`): recorder signatures on the records the tools make. */
  sign?: { signingKey?: string };
  /**
   * Standard input was read and paused before the SDK was loaded, its bytes put back (start.ts);
   * `reply` is the answer to `initialize` already written, which the SDK's own answer to the
   * same request replaces.
   */
  early?: { reply: InitializeReply | undefined; client: ClientGone };
}

/** Serves until the client closes standard input. */
export async function serveMcp(options: McpServerOptions): Promise<void> {
  const server = new Server(SERVER_INFO, {
    capabilities: SERVER_CAPABILITIES,
    instructions: SERVER_INSTRUCTIONS,
  });
  let loading: ReturnType<typeof loadTools> | undefined;
  const loaded = () => (loading ??= loadTools(options.cwd));
  const context = (ledger: ToolContext['ledger'], signal: AbortSignal): ToolContext => {
    const client = server.getClientVersion();
    return {
      ledger,
      signal,
      witnesses: options.witnesses,
      ...(options.sign === undefined ? {} : { sign: options.sign }),
      ...(options.witnessTimeoutSeconds === undefined
        ? {}
        : { witnessTimeoutSeconds: options.witnessTimeoutSeconds }),
      ...(client ? { client: { name: client.name, version: client.version } } : {}),
    };
  };
  // Every request read before the end of input is answered before the session closes.
  const drain = createDrain();
  server.setRequestHandler(
    ListToolsRequestSchema,
    drain.track(async () => ({ tools: (await loaded()).tools.listTools() })),
  );
  // A few tool calls at a time, the rest waiting in order (call-queue.ts); a waiting call is
  // counted by the drain too, so the end of input still answers it. A running call that is
  // cancelled gets the signal too: a record ends its witness, a verify its re-run witnesses, so
  // its place is freed once that work has stopped, not when a hung witness times out (red
  // team, rounds fourteen and fifteen).
  // A call beyond the most that wait is answered at once as its tool's error, and dropped.
  const queue = createCallQueue();
  const unknown = (name: string) => new McpError(ErrorCode.InvalidParams, `unknown tool ${name}`);
  server.setRequestHandler(
    CallToolRequestSchema,
    drain.track(async (request, extra) => {
      const { name } = request.params;
      try {
        return await queue.run(extra.signal, async () => {
          const { tools, ledger } = await loaded();
          const result = await tools.callTool(
            name,
            request.params.arguments,
            context(ledger, extra.signal),
          );
          if (!result) throw unknown(name);
          return result;
        });
      } catch (error) {
        if (!(error instanceof CallQueueFull)) throw error;
        const refused = (await loaded()).tools.refusedCall(name, error);
        if (!refused) throw unknown(name);
        return refused;
      }
    }),
  );

  let ending = false;
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // The stdio transport does not notice the client going away on its own. Closed once no
    // request is running and every answer is written (closing aborts what is under way).
    const close = () => {
      if (ending) return;
      ending = true;
      void drain.idle().then(() => server.close());
    };
    process.stdin.once('end', close);
    process.stdin.once('close', close);
  });
  // The client went away (client-gone.ts): no answer can reach it, so the session ends now and
  // closing aborts the calls under way — a verify ends its re-run witnesses, a waiting call
  // leaves the queue — rather than finishing work nobody will read.
  const client = options.early?.client ?? watchClientGone(process.stdout, say);
  void client.gone.then(() => {
    ending = true;
    return server.close();
  });
  // The transport's limit is the one the tools' input schemas are held under (message-limit.ts).
  const transport = new StdioServerTransport(process.stdin, process.stdout, {
    maxBufferSize: MESSAGE_LIMIT_BYTES,
  });
  sayWhyItClosed(transport, () => ending);
  answerUnreadableLines(transport);
  // A client that does not read its answers is not read either: they would pile up here. This
  // writes the answers, so it goes first: the wrappers below call it.
  readOnlyWhileAnswersAreRead(transport, process.stdin, process.stdout);
  drain.watch(transport);
  const reply = options.early?.reply;
  if (reply !== undefined) dropRepeatedReply(transport, reply);
  await server.connect(transport);
  // Paused by start.ts; adding the transport's 'data' listener does not resume a paused stream.
  if (options.early) process.stdin.resume();
  await closed;
}

/**
 * Drops the SDK's answer to the `initialize` start.ts already answered: the first response with
 * its id (the SDK answers requests in the order it reads them, and reads that one first). Had
 * the two answers differed, the client got the wrong one: said on stderr, which a client logs.
 */
function dropRepeatedReply(transport: StdioServerTransport, reply: InitializeReply) {
  const send = transport.send.bind(transport);
  let pending = true;
  transport.send = async (message) => {
    if (pending && 'id' in message && message.id === reply.id && !('method' in message)) {
      pending = false;
      // Fixed text, nothing of the client's: stderr is below the command base's escaping here.
      if (`${JSON.stringify(message)}\n` !== reply.text)
        // eslint-disable-next-line no-restricted-syntax
        process.stderr.write("ledger mcp: the early answer to initialize differs from the SDK's\n");
      return;
    }
    return send(message);
  };
}

/**
 * The transport closes the session itself on a message over its limit, and said nothing: the
 * client saw "Connection closed" and the user a server gone without a word (red team, round
 * nine). One line on stderr, which a client logs, says why. Only the transport's own close is
 * reported (not the end of input), with the error it closed on — reported in the same turn,
 * never an earlier one (a malformed line's parse error quotes the client's bytes), and only
 * as plain printable text.
 */
function sayWhyItClosed(transport: StdioServerTransport, ending: () => boolean): void {
  let last: Error | undefined;
  // Set before connect: the SDK's Protocol calls what it finds here before its own handlers.
  transport.onerror = (error) => {
    last = error;
    queueMicrotask(() => (last = undefined));
  };
  transport.onclose = () => {
    if (ending()) return;
    const said = last?.message ?? '';
    const why = /^[\x20-\x7e]{1,200}$/.test(said) ? said : 'a transport error';
    // eslint-disable-next-line no-restricted-syntax
    process.stderr.write(
      `ledger mcp: closed the session: ${why} (one message may take at most ${MESSAGE_LIMIT_BYTES / 1024 / 1024} MiB; the tools' input schemas stay under it)\n`,
    );
  };
}

/** One plain line on stderr, which a client logs (fixed text: below the command base's escaping). */
function say(line: string): void {
  // eslint-disable-next-line no-restricted-syntax
  process.stderr.write(line);
}
