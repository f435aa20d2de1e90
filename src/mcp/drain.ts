/**
 * Ending a session without losing answers. A client that writes its requests and closes its end
 * (a script, a CI smoke test, `printf … | ledger mcp`) is owed an answer to every request read
 * before the end; the SDK's `close` aborts the requests still running and drops their answers.
 * A `tools/*` request first loads the tools and the library and then does git work — many turns
 * after the end of input arrives — so waiting one turn lost every such answer, while the record
 * it asked for was still written (red team, round nine). So the server counts the handlers that
 * run and the answers being written, and closes only when neither is left.
 */

/** Something with the SDK transport's `send`: each write is counted until it is done. */
interface Sender {
  send(...args: never[]): Promise<void>;
}

export interface Drain {
  /** `handler`, counted while it runs. */
  track<A extends unknown[], R>(handler: (...args: A) => Promise<R>): (...args: A) => Promise<R>;
  /** Counts each of the transport's writes until it is done (call before connecting). */
  watch(transport: Sender): void;
  /** Resolves once no handler runs and no answer is being written. */
  idle(): Promise<void>;
}

export function createDrain(): Drain {
  let running = 0;
  let writing = 0;
  const waiting = new Set<() => void>();
  const settled = () => {
    for (const wake of waiting) wake();
    waiting.clear();
  };
  const counted = async <R>(work: () => Promise<R>, count: (by: number) => void): Promise<R> => {
    count(1);
    try {
      return await work();
    } finally {
      count(-1);
      settled();
    }
  };
  return {
    track(handler) {
      return (...args) =>
        counted(
          () => handler(...args),
          (by) => (running += by),
        );
    },
    watch(transport) {
      const send = transport.send.bind(transport);
      transport.send = (...args) =>
        counted(
          () => send(...args),
          (by) => (writing += by),
        );
    },
    async idle() {
      for (;;) {
        // A turn first, and again after each handler settles: the SDK writes a handler's answer
        // a few steps after the handler returns, and answers what no handler here serves
        // (initialize, ping, an unknown method) within the turn it reads it.
        await new Promise((resolve) => setImmediate(resolve));
        if (running === 0 && writing === 0) return;
        await new Promise<void>((wake) => waiting.add(wake));
      }
    },
  };
}
