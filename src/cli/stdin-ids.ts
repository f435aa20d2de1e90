/**
 * Record ids read from stdin only when the caller says so with `-` (as `git` and `xargs` read
 * it): a CI step or a hook that runs `ledger verify` with something piped in would otherwise
 * verify whatever that was instead of the whole ledger (oclif reads a missing argument from a
 * pipe unless told not to: `ignoreStdin`).
 */
import { LedgerError } from '../model/errors.js';

/** Far above any list of ids a person pipes in (a 100,000-record ledger's ids are ~7 MB). */
const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/** `given` with each `-` replaced by the whitespace-separated ids read from stdin. */
export async function expandStdinIds(
  given: readonly string[],
  stdin: AsyncIterable<Buffer | string> = process.stdin,
): Promise<string[]> {
  if (!given.includes('-')) return [...given];
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > MAX_STDIN_BYTES)
      throw new LedgerError(
        'USAGE',
        `the record ids on stdin are over ${MAX_STDIN_BYTES} bytes; expected whitespace-separated ids`,
      );
    chunks.push(bytes);
  }
  const read = Buffer.concat(chunks).toString('utf8').split(/\s+/).filter(Boolean);
  if (read.length === 0)
    throw new LedgerError('USAGE', '`-` reads record ids from stdin, and stdin held none', {
      hint: 'ledger log --json lists ids; without `-`, every record is verified.',
    });
  return given.flatMap((g) => (g === '-' ? read : [g]));
}
