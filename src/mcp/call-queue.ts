/**
 * Tool calls a few at a time. The SDK starts a handler for every request the moment it reads
 * it, and an agent may pipeline as many as it likes: 100 `verify` calls ran at once, 200 git
 * processes on a 3-record ledger, memory growing with every request in flight (red team, round
 * thirteen; a 10 MiB message window holds tens of thousands of small calls). Here the rest
 * wait, in the order they came (src/model/slots.ts); each is answered.
 *
 * At most TOOL_CALLS_WAITING wait. Each waiting call holds its request and the SDK's state for
 * it, about 6 KB of server memory for a 95-byte request: 120,000 pipelined calls grew the
 * server by 713 MiB (red team, round fifteen). One more is refused at once, as a tool error the
 * agent can act on (how many wait; try again once earlier calls have answered), and nothing of
 * it is kept. So what waits costs time, and at most ~400 KB.
 *
 * Two at once: a `record` is not held up behind one slow `verify`, and two calls already keep
 * both cores of a small machine busy (each call runs its own git processes). A call cancelled
 * while it waits (`notifications/cancelled`, or the session closing) leaves the queue and never
 * starts; the SDK then answers nothing for it, as it does for a cancelled call that ran. A
 * running call keeps its place until its work has stopped: the server hands the work the same
 * signal (a record ends its witness, a verify its re-run witnesses), so a cancelled call does
 * not hold a place for long.
 */
import { LedgerError } from '../model/errors.js';
import { pausePoint, tracePoint } from '../model/faults.js';
import { createSlots } from '../model/slots.js';

export const TOOL_CALLS_AT_ONCE = 2;

/**
 * 64: an agent waits for its answers (a host runs a model's tool calls in turns) and has no use
 * for more than a handful outstanding — 64 behind two `verify {rerun: true}` are already
 * minutes of work — while a flood of them would hold memory for nothing.
 */
export const TOOL_CALLS_WAITING = 64;

/** A call refused because as many as may wait were waiting: nothing of it ran or was kept. */
export class CallQueueFull extends LedgerError {
  constructor(waiting: number, running: number) {
    super(
      'LOCKED',
      `ledger mcp is busy: ${waiting} tool calls are waiting behind the ${running} running, the most it queues; this call was not run`,
      {
        hint: 'Nothing was run or written. Call again once earlier calls have answered (wait for answers before sending more).',
      },
    );
  }
}

export interface CallQueue {
  /**
   * `work`, started once fewer than the limit run and every call queued before it started;
   * rejects at once with CallQueueFull when as many as may wait are waiting.
   */
  run<R>(signal: AbortSignal, work: () => Promise<R>): Promise<R>;
}

export function createCallQueue(
  limit = TOOL_CALLS_AT_ONCE,
  mostWaiting = TOOL_CALLS_WAITING,
): CallQueue {
  const places = createSlots(limit);
  return {
    async run(signal, work) {
      signal.throwIfAborted();
      if (places.waiting() >= mostWaiting) {
        tracePoint('mcp-tool-call refused');
        throw new CallQueueFull(places.waiting(), limit);
      }
      const release = await places.take(signal).catch((reason: unknown) => {
        tracePoint('mcp-tool-call cancelled while waiting');
        throw reason;
      });
      tracePoint('mcp-tool-call start');
      try {
        await pausePoint('mcp-tool-call');
        return await work();
      } finally {
        tracePoint('mcp-tool-call end');
        release();
      }
    },
  };
}
