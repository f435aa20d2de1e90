/**
 * Tool calls a few at a time. The SDK starts a handler for every request the moment it reads
 * it, and an agent may pipeline as many as it likes: 100 `verify` calls ran at once, 200 git
 * processes on a 3-record ledger, memory growing with every request in flight (red team, round
 * thirteen; a 10 MiB message window holds tens of thousands of small calls). Here the rest
 * wait, in the order they came (src/model/slots.ts), so a flood costs time, not memory; each is
 * answered.
 *
 * Two at once: a `record` is not held up behind one slow `verify`, and two calls already keep
 * both cores of a small machine busy (each call runs its own git processes). A call cancelled
 * while it waits (`notifications/cancelled`, or the session closing) leaves the queue and never
 * starts; the SDK then answers nothing for it, as it does for a cancelled call that ran. A
 * running call keeps its place until its work has stopped: the server hands the work the same
 * signal (a record ends its witness, a verify its re-run witnesses), so a cancelled call does
 * not hold a place for long.
 */
import { pausePoint, tracePoint } from '../model/faults.js';
import { createSlots } from '../model/slots.js';

export const TOOL_CALLS_AT_ONCE = 2;

export interface CallQueue {
  /** `work`, started once fewer than the limit run and every call queued before it started. */
  run<R>(signal: AbortSignal, work: () => Promise<R>): Promise<R>;
}

export function createCallQueue(limit = TOOL_CALLS_AT_ONCE): CallQueue {
  const places = createSlots(limit);
  return {
    async run(signal, work) {
      signal.throwIfAborted();
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
