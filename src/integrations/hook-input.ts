/**
 * The hook input on standard input, read once. The cheap path in bin/run.js reads it to decide
 * whether a turn can hold a handoff at all; when it can, the command runs with the same bytes
 * (stdin cannot be read twice), handed over here.
 */
import { LedgerError } from '../model/errors.js';

/** Hook input larger than this is refused; a final message is far smaller. */
export const MAX_HOOK_INPUT_BYTES = 16 * 1024 * 1024;

let preread: Uint8Array | undefined;

/** The bytes the cheap path already read from stdin (up to one past the limit). */
export function handOverInput(bytes: Uint8Array): void {
  preread = bytes;
}

function tooLarge(): LedgerError {
  return new LedgerError('INVALID_INPUT', 'the hook input is too large', {
    problems: [
      {
        path: '',
        message: 'over the size limit',
        expected: `at most ${MAX_HOOK_INPUT_BYTES} bytes`,
      },
    ],
  });
}

/** Reads stdin to its end, at most one byte past the limit (so "too large" can be told). */
export async function readStdinBounded(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    size += buffer.length;
    if (size > MAX_HOOK_INPUT_BYTES) break;
  }
  return Buffer.concat(chunks);
}

/** The hook input: what the cheap path read, else stdin; too large is an input error. */
export async function readHookInput(): Promise<Uint8Array> {
  const bytes = preread ?? (await readStdinBounded());
  preread = undefined;
  if (bytes.length > MAX_HOOK_INPUT_BYTES) throw tooLarge();
  return bytes;
}
