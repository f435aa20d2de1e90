/**
 * The places the re-run sandbox and the MCP server share (src/model/slots.ts), in memory: at
 * most `size` held, given in the order asked, a freed place handed on in the same turn, and a
 * waiter whose signal aborts never given one.
 */
import { describe, expect, it } from 'vitest';
import { createSlots } from '../../src/model/slots.js';

const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('slots', () => {
  it('gives places in the order asked, and each freed place to the next waiter', async () => {
    const slots = createSlots(2);
    const given: number[] = [];
    const releases = new Map<number, () => void>();
    for (let i = 0; i < 5; i++)
      void slots.take().then((release) => {
        given.push(i);
        releases.set(i, release);
      });
    await turns();
    expect(given).toEqual([0, 1]);
    releases.get(1)!();
    releases.get(1)!(); // a second give-back of the same place frees nothing more
    await turns();
    expect(given).toEqual([0, 1, 2]);
    releases.get(0)!();
    releases.get(2)!();
    await turns();
    expect(given).toEqual([0, 1, 2, 3, 4]);
  });

  it('a waiter whose signal aborts leaves the line and is never given a place', async () => {
    const slots = createSlots(1);
    const first = await slots.take();
    const cancel = new AbortController();
    const cancelled = slots.take(cancel.signal);
    const next = slots.take();
    cancel.abort('gone');
    await expect(cancelled).rejects.toBe('gone');
    first();
    const release = await next;
    // The one place is held by `next`: a new taker waits until it is given back.
    let third = false;
    void slots.take().then(() => (third = true));
    await turns();
    expect(third).toBe(false);
    release();
    await turns();
    expect(third).toBe(true);
  });

  it('an already aborted signal takes no place', async () => {
    const slots = createSlots(1);
    await expect(slots.take(AbortSignal.abort('too late'))).rejects.toBe('too late');
    const release = await slots.take();
    release();
  });

  it('with() gives the place back when the task fails', async () => {
    const slots = createSlots(1);
    await expect(slots.with(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.with(async () => 'next')).toBe('next');
  });

  it('waiting() counts those waiting: one given a place or gone is not counted', async () => {
    const slots = createSlots(1);
    const first = await slots.take();
    expect(slots.waiting()).toBe(0);
    const cancel = new AbortController();
    const leaving = slots.take(cancel.signal);
    const next = slots.take();
    expect(slots.waiting()).toBe(2);
    cancel.abort('gone');
    await expect(leaving).rejects.toBe('gone');
    expect(slots.waiting()).toBe(1);
    first();
    expect(slots.waiting()).toBe(0);
    (await next)();
  });
});
