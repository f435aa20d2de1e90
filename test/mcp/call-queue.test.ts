/**
 * The tool-call queue in memory (src/mcp/call-queue.ts): at most the limit at once, started in
 * the order they came, a freed place handed on at once, and a call cancelled while it waits
 * never started. The session-level behaviour, with the SDK's client, is
 * test/mcp/tool-call-queue.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createCallQueue } from '../../src/mcp/call-queue.js';

function deferred() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the tool-call queue', () => {
  it('runs at most two, starts the rest in order as places free, and never starts a cancelled one', async () => {
    const queue = createCallQueue(2);
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const gates = Array.from({ length: 6 }, deferred);
    const cancel = new AbortController();
    const calls = gates.map((gate, i) =>
      queue.run(i === 3 ? cancel.signal : new AbortController().signal, async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await gate.done;
        running--;
        return i;
      }),
    );
    await turns();
    expect(started).toEqual([0, 1]);
    cancel.abort('changed its mind');
    await expect(calls[3]).rejects.toBe('changed its mind');
    // Two places freed in one turn start exactly two more.
    gates[0]!.release();
    gates[1]!.release();
    await turns();
    expect(started).toEqual([0, 1, 2, 4]);
    for (const gate of gates) gate.release();
    expect(await Promise.all([0, 1, 2, 4, 5].map((i) => calls[i]))).toEqual([0, 1, 2, 4, 5]);
    expect(started).toEqual([0, 1, 2, 4, 5]);
    expect(most).toBe(2);
  });

  it('a call that fails frees its place', async () => {
    const queue = createCallQueue(1);
    const signal = new AbortController().signal;
    await expect(queue.run(signal, () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await queue.run(signal, async () => 'next')).toBe('next');
  });

  it('refuses a call at once when as many as may wait are waiting, and takes calls again once fewer wait', async () => {
    const queue = createCallQueue(1, 2);
    const signal = new AbortController().signal;
    const gate = deferred();
    const started: number[] = [];
    const call = (i: number) =>
      queue.run(signal, async () => {
        started.push(i);
        await gate.done;
        return i;
      });
    const accepted = [call(0), call(1), call(2)];
    // Refused at once, not after the calls ahead of it: a queued call would still be waiting.
    const refused = Promise.race([call(3), turns().then(() => 'still waiting')]);
    await expect(refused).rejects.toMatchObject({ code: 'LOCKED' });
    await expect(refused).rejects.toThrow('2 tool calls are waiting');
    await turns();
    expect(started).toEqual([0]);
    gate.release();
    expect(await Promise.all(accepted)).toEqual([0, 1, 2]);
    expect(await call(4)).toBe(4);
  });
});
