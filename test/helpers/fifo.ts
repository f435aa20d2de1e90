/**
 * FIFOs for tests of readers that must never wait on one. A reader that did block is released
 * (a writer opens the FIFO) after `releaseAfterMs`, so a regression fails the test instead of
 * hanging the test run.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';

export function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/** Runs `read`; `blocked` is true when the FIFO at `fifo` had to be released for it to return. */
export async function withFifoRelease<T>(
  fifo: string,
  read: () => Promise<T>,
  releaseAfterMs = 5000,
): Promise<{ value: T; blocked: boolean }> {
  let blocked = false;
  const timer = setTimeout(() => {
    try {
      // Succeeds only while a reader is waiting on the FIFO: that reader blocked.
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      blocked = true;
    } catch {
      // ENXIO: no reader waiting
    }
  }, releaseAfterMs);
  try {
    return { value: await read(), blocked };
  } finally {
    clearTimeout(timer);
  }
}
