/**
 * Showing a failure to the user, and classifying what was thrown outside oclif's own errors
 * (src/cli/errors.ts adds those): without oclif, so that the paths bin/run.js answers without
 * it (src/cli/fast-record.ts) report a failure in the same words, bytes and exit code.
 */
import { internalError, isLedgerError, LedgerError } from '../model/errors.js';
import { printableText, toTerminalJson } from '../paths/index.js';

/** Either an error to show, or an exit oclif asked for (`this.exit(n)`) that shows nothing. */
export type Failure = { error: LedgerError } | { exit: number };

/** Classifies anything thrown that is not one of oclif's errors into a coded LedgerError. */
export function toPlainFailure(error: unknown): Failure {
  if (isLedgerError(error)) return { error };
  if (isSystemError(error)) {
    const where = error.path === undefined ? '' : ` ${error.path}`;
    return {
      error: new LedgerError('SYSTEM', `${error.syscall}${where} failed: ${error.code}`, {
        hint: 'The operating system refused; nothing was written. Check the file or program named above.',
        cause: error,
      }),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { error: internalError(message, error) };
}

function isSystemError(
  error: unknown,
): error is NodeJS.ErrnoException & { syscall: string; code: string } {
  const e = error as NodeJS.ErrnoException | null;
  return e instanceof Error && typeof e.code === 'string' && typeof e.syscall === 'string';
}

/** Shows a failure on stderr (a person) or as JSON on stdout (`--json`), returns the exit code. */
export function reportFailure(failure: Failure, json: boolean): number {
  if ('exit' in failure) return failure.exit;
  const { error } = failure;
  if (json) {
    process.stdout.write(
      `${toTerminalJson({ ok: false, exitCode: error.exitCode, error: error.toJSON() })}\n`,
    );
  } else {
    process.stderr.write(`${printableText(renderErrorText(error))}\n`);
  }
  return error.exitCode;
}

/** The text a person sees: the message, every problem with its path, the hint. */
export function renderErrorText(error: LedgerError): string {
  const lines = [`ledger: ${error.message}`];
  for (const p of error.problems) {
    const where = p.path === '' ? '' : `${p.path}: `;
    const expected =
      p.expected === undefined
        ? ''
        : ` (expected ${p.expected}${p.got === undefined ? '' : `, got ${p.got}`})`;
    lines.push(`  - ${where}${p.message}${expected}`);
  }
  if (error.hint) lines.push(error.hint);
  if (error.code === 'INTERNAL' && error.cause instanceof Error && error.cause.stack)
    lines.push(...error.cause.stack.split('\n').slice(1, 8));
  return lines.join('\n');
}
