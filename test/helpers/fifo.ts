/**
 * FIFOs for tests of readers that must never wait on one. A process that did block is released
 * after `releaseAfterMs` (and every `releaseAfterMs` after that), so a regression fails the test instead of hanging the test run.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';

export function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/**
 * Runs `read`; `blocked` is true when the FIFO at `fifo` had to be released for it to return.
 * `side`: how the process under test opens it — to read (a ref, an object), released by a
 * writer, or to write (a reflog git appends to), released by a reader.
 */
export async function withFifoRelease<T>(
  fifo: string,
  read: () => Promise<T>,
  releaseAfterMs = 5000,
  side: 'reader' | 'writer' = 'reader',
): Promise<{ value: T; blocked: boolean }> {
  let blocked = false;
  let readEnd: number | undefined;
  // Again every period: git may open the FIFO more than once (each process of a sync does).
  const timer = setInterval(() => {
    if (side === 'writer') {
      // Always opens; a writer waiting in its open then goes on, and what it writes is here.
      readEnd ??= openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      return;
    }
    try {
      // Succeeds only while a reader is waiting on the FIFO: that reader blocked.
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      blocked = true;
    } catch {
      // ENXIO: no reader waiting
    }
  }, releaseAfterMs);
  let value: T;
  try {
    value = await read();
  } finally {
    clearInterval(timer);
    if (readEnd !== undefined) {
      try {
        blocked = readSync(readEnd, Buffer.alloc(4096)) > 0;
      } catch {
        // EAGAIN: a writer still holds it open and wrote nothing
      } finally {
        closeSync(readEnd);
      }
    }
  }
  return { value, blocked };
}
