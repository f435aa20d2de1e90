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
 * written twice, as text and as structured content). Few answers wait behind it: the SDK waits
 * for the output to drain once per answer, each with a listener of its own, so thousands
 * waiting cost time with every drain (60,000 unread pings took half a minute at 1 MiB).
 */
export const UNREAD_ANSWER_BYTES = 64 * 1024;

/** Something with the SDK transport's `send`, which writes synchronously when called. */
interface Sender {
  send(...args: never[]): Promise<void>;
}

interface Input {
  pause(): unknown;
  resume(): unknown;
}

interface Output {
  readonly writableLength: number;
  once(event: 'drain', listener: () => void): unknown;
}

/** Pauses `input` after any write that leaves more than `most` bytes unwritten, until drained. */
export function readOnlyWhileAnswersAreRead(
  transport: Sender,
  input: Input,
  output: Output,
  most = UNREAD_ANSWER_BYTES,
): void {
  const send = transport.send.bind(transport);
  let held = false;
  transport.send = (...args) => {
    const sent = send(...args);
    if (!held && output.writableLength > most) {
      held = true;
      input.pause();
      output.once('drain', () => {
        held = false;
        input.resume();
      });
    }
    return sent;
  };
}
