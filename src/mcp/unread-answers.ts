/**
 * Reading waits for the client to read. Every request read is answered, and an answer the
 * client has not read yet waits here: in standard output's buffer, and as the SDK's state for
 * its request until the write drains (about 6 KB a request). A client that pipelined requests
 * without reading the answers grew the server without bound — 120,000 small calls, 713 MiB
 * (red team, round fifteen); the call queue's cap bounds the calls that wait to run, not the
 * answers that wait to be read. So while more than UNREAD_ANSWER_BYTES of answers are unwritten,
 * standard input is not read: the client's writes block in the pipe, as any program's do when
 * what it writes to is not read, and the server's memory stays bounded whatever is sent. Once
 * the answers are read, reading goes on where it stopped; nothing is lost, and the end of input
 * is seen only after it.
 */

/**
 * A pipe's worth, above the largest answer (bound.ts keeps one under ANSWER_LIMIT characters,
 * written twice, as text and as structured content). Few answers wait behind it: each is the
 * SDK's state for its request until written (60,000 unread pings took half a minute at 1 MiB).
 */
export const UNREAD_ANSWER_BYTES = 64 * 1024;

/** Something with the SDK transport's `send`, replaced here by the writer of answers. */
interface Sender {
  send(message: object): Promise<void>;
}

interface Input {
  pause(): unknown;
  resume(): unknown;
}

interface Output {
  readonly writableLength: number;
  readonly destroyed: boolean;
  write(chunk: string): boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * Writes the transport's answers as the SDK does (one JSON line each, resolved once written or
 * drained), and pauses `input` after any write that leaves more than `most` bytes unwritten,
 * until drained. Every answer waiting for the same drain shares one wait: the SDK added a
 * 'drain' listener per unwritten answer, hundreds for a client that pipelined its requests
 * (MaxListenersExceededWarning, red team, round sixteen). Once the output is destroyed (the
 * client went away: client-gone.ts), nothing is written and the waits end.
 */
export function readOnlyWhileAnswersAreRead(
  transport: Sender,
  input: Input,
  output: Output,
  most = UNREAD_ANSWER_BYTES,
): void {
  let held = false;
  let drained: Promise<void> | undefined;
  const waitForDrain = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        output.off('drain', done);
        output.off('close', done);
        drained = undefined;
        if (held && !output.destroyed) input.resume();
        held = false;
        resolve();
      };
      output.once('drain', done);
      output.once('close', done);
    });
  transport.send = (message) => {
    if (output.destroyed) return Promise.resolve();
    const written = output.write(`${JSON.stringify(message)}\n`);
    if (written) return Promise.resolve();
    // Only a write that returned false is followed by a 'drain'.
    if (!held && output.writableLength > most) {
      held = true;
      input.pause();
    }
    return (drained ??= waitForDrain());
  };
}
