/**
 * A line that is not one JSON-RPC message — a batch (protocol 2025-03-26, which this server
 * accepts, allowed them; it answers one request a line, as 2025-06-18 does), or no JSON at all —
 * was dropped by the SDK without a word, and a client waited for its answers forever (red team,
 * round seventeen). JSON-RPC 2.0 answers such a line with an error whose id is null, since none
 * can be read from it: sent through the transport (an answer the client does not read still
 * pauses reading, unread-answers.ts), in fixed words, quoting nothing of the client's bytes.
 */
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/** Set before connect, beside sayWhyItClosed: the SDK calls what it finds here first. */
export function answerUnreadableLines(transport: StdioServerTransport): void {
  const before = transport.onerror;
  transport.onerror = (error) => {
    before?.(error);
    const answer = answerTo(error);
    // The transport's own error path: nothing can be said about a failed answer to it.
    if (answer !== undefined) transport.send(answer as never).catch(() => undefined);
  };
}

/**
 * The SDK's line reader throws what `JSON.parse` throws for a line that is no JSON, and its
 * message schema's error for JSON that is no single message; every other error it reports (a
 * message over the limit, a closed stream) ends the session, and sayWhyItClosed says those.
 */
function answerTo(error: unknown): object | undefined {
  if (error instanceof SyntaxError)
    return refusal(-32700, 'Parse error: a line that is not JSON was ignored');
  if (error instanceof Error && error.name === 'ZodError')
    return refusal(
      -32600,
      'Invalid Request: a line that is not one JSON-RPC message was ignored (batches are not supported: send one request a line)',
    );
  return undefined;
}

function refusal(code: number, message: string): object {
  return { jsonrpc: '2.0', id: null, error: { code, message } };
}
