/**
 * A fixed number of places, handed out in the order they were asked for: the re-run sandbox's
 * concurrent witnesses and checkouts (src/witness/rerun.ts) and the MCP server's tool calls
 * (src/mcp/call-queue.ts). A freed place goes straight to the next waiter, in the same turn, so
 * two places freed in one turn never let more than `size` run. One asked for with a signal that
 * aborts while it waits leaves the line and is never taken.
 */

export interface Slots {
  /**
   * A place, once free; call what it resolves to to give it back (a second call does nothing).
   * Rejects with the signal's reason when the signal aborts before the place is given.
   */
  take(signal?: AbortSignal): Promise<() => void>;
  /** `task` run in a place, given back however `task` ends. */
  with<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** How many wait for a place now (a place freed goes to the first of them in the same turn). */
  waiting(): number;
}

export function createSlots(size: number): Slots {
  let free = size;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  };
  const acquire = (signal: AbortSignal | undefined): Promise<void> => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (free > 0 && waiting.length === 0) {
      free -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((start, cancel) => {
      const go = (): void => {
        signal?.removeEventListener('abort', leave);
        start();
      };
      const leave = (): void => {
        const at = waiting.indexOf(go);
        if (at >= 0) waiting.splice(at, 1);
        cancel(signal!.reason);
      };
      waiting.push(go);
      signal?.addEventListener('abort', leave, { once: true });
    });
  };
  const once = (): (() => void) => {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      release();
    };
  };
  return {
    async take(signal) {
      await acquire(signal);
      return once();
    },
    async with(task, signal) {
      await acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    waiting: () => waiting.length,
  };
}
