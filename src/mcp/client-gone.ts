/**
 * The client going away — a host closing the session mid-call, the agent's process killed — is
 * a normal end of a session, not a crash. Standard output then fails (EPIPE once the client's
 * end of the pipe is closed) and nothing listened: `ledger mcp` died of an unhandled 'error'
 * event, a stack trace on stderr that hosts log as a server crash, possibly while another call
 * was mid-work (red team, round sixteen). Watched from the server's first write (start.ts
 * answers `initialize` before the SDK is loaded), for the whole session.
 */

/** Standard output's failure, once: the session ends (server.ts), nothing more is written. */
export interface ClientGone {
  /** Resolves when standard output fails: the client went away, or cannot be written to. */
  readonly gone: Promise<void>;
}

/** What a client leaving looks like from the writing end: nothing to say about it. */
const LEFT = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET']);

export function watchClientGone(
  output: { on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown },
  say: (line: string) => void,
): ClientGone {
  let left!: () => void;
  const gone = new Promise<void>((resolve) => (left = resolve));
  let seen = false;
  output.on('error', (error) => {
    if (seen) return;
    seen = true;
    // Any other failure ends the session the same way, with one plain line (its code only).
    const code = typeof error.code === 'string' && /^[A-Z0-9_]{1,40}$/.test(error.code);
    if (!LEFT.has(error.code ?? ''))
      say(
        `ledger mcp: standard output failed${code ? ` (${error.code})` : ''}; closed the session\n`,
      );
    left();
  });
  return { gone };
}
