/**
 * `ledger mcp`: a Model Context Protocol server over stdio, so an agent can record its own
 * handoffs and read the ledger through tool calls. The SDK is loaded only here (and this
 * module only by `ledger mcp`), so no other command pays for it at start-up.
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
import { LEDGER_VERSION } from '../model/version.js';
import type { ToolContext } from './tools.js';

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
}

/** Serves until the client closes standard input. */
export async function serveMcp(options: McpServerOptions): Promise<void> {
  const server = new Server(
    { name: 'ledger', title: 'handoff ledger', version: LEDGER_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'A Git-native ledger of agent handoffs. Call `record` with your handoff when you finish a run; `verify`, `show` and `log` read what is recorded. Every result carries the CLI exit code: 0 ok, 1 a claim was contradicted, 2 bad input (nothing written), 3 damaged ledger data.',
    },
  );
  let loading: ReturnType<typeof loadTools> | undefined;
  const loaded = () => (loading ??= loadTools(options.cwd));
  const context = (ledger: ToolContext['ledger']): ToolContext => {
    const client = server.getClientVersion();
    return {
      ledger,
      witnesses: options.witnesses,
      ...(options.sign === undefined ? {} : { sign: options.sign }),
      ...(options.witnessTimeoutSeconds === undefined
        ? {}
        : { witnessTimeoutSeconds: options.witnessTimeoutSeconds }),
      ...(client ? { client: { name: client.name, version: client.version } } : {}),
    };
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await loaded()).tools.listTools(),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { tools, ledger } = await loaded();
    const result = await tools.callTool(
      request.params.name,
      request.params.arguments,
      context(ledger),
    );
    if (!result) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
    return result;
  });

  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // The stdio transport does not notice the client going away on its own.
    process.stdin.once('end', () => void server.close());
    process.stdin.once('close', () => void server.close());
  });
  await server.connect(new StdioServerTransport());
  await closed;
}
