/**
 * Every failure that reaches the user goes through here, from a command or from oclif itself
 * (an unknown command, a help topic that does not exist), so that the exit-code promise holds
 * everywhere: 1 contradicted, 2 bad usage or input, 3 integrity, 4 a bug in ledger.
 *
 * oclif's errors are recognised by their classes (`Errors.CLIError` and its parse-error
 * subclasses, `ExitError`, `ModuleLoadError`), never by matching their message text, which
 * changes between oclif versions.
 */
import { stripVTControlCharacters } from 'node:util';
import { Errors } from '@oclif/core';
import { EXIT, internalError, isLedgerError, LedgerError, type Problem } from '../model/errors.js';
import { escapeForTerminal, toTerminalJson } from '../paths/index.js';
import { neutralizeWorkflowCommands } from './annotations.js';
import { closestFlag } from './suggest.js';

/** What the failing command can tell about itself, for a suggestion. */
export interface FailureContext {
  /** The command's id (`record`), when a command was running. */
  command?: string;
  /** Its flags' names without dashes, to suggest the one a misspelt flag meant. */
  flagNames?: readonly string[];
}

/** Either an error to show, or an exit oclif asked for (`this.exit(n)`) that shows nothing. */
export type Failure = { error: LedgerError } | { exit: number };

/** Classifies anything thrown into a coded LedgerError. */
export function toFailure(error: unknown, context: FailureContext = {}): Failure {
  if (isLedgerError(error)) return { error };
  if (error instanceof Errors.ExitError) return { exit: error.oclif.exit ?? EXIT.ok };
  if (error instanceof Errors.ModuleLoadError) {
    return {
      error: new LedgerError(
        'INTERNAL',
        `ledger could not load one of its modules: ${plain(error)}`,
        {
          hint: 'The installation is incomplete or damaged: reinstall handoff-ledger (npm ci), then retry.',
          cause: error,
        },
      ),
    };
  }
  if (error instanceof Errors.CLIError) return { error: fromOclifUsageError(error, context) };
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

/**
 * Parse errors (a nonexistent flag, an unexpected argument, a missing value) and other oclif
 * CLIErrors are usage errors: exit 2, whatever exit code oclif chose (it uses 2 for some, 1 or
 * 127 for others).
 */
function fromOclifUsageError(error: Errors.CLIError, context: FailureContext): LedgerError {
  const help = `See ledger ${context.command ?? ''}${context.command ? ' ' : ''}--help for the flags and examples.`;
  const unknownFlags = (error as { flags?: unknown }).flags;
  if ('parse' in error && Array.isArray(unknownFlags)) {
    const problems: Problem[] = unknownFlags.map((flag: unknown) => {
      const reported = String(flag);
      const meant = closestFlag(reported, context.flagNames ?? []);
      return {
        path: reported,
        message: 'unknown flag',
        ...(meant === undefined ? {} : { expected: meant }),
        got: reported,
      };
    });
    const meant = problems.map((p) => p.expected).filter((m) => m !== undefined);
    return new LedgerError(
      'USAGE',
      `unknown flag${problems.length === 1 ? '' : 's'}: ${problems.map((p) => p.got).join(', ')}`,
      {
        problems,
        hint: `${meant.length > 0 ? `Did you mean ${meant.join(', ')}? ` : ''}${help}`,
        cause: error,
      },
    );
  }
  return new LedgerError('USAGE', plain(error), { hint: help, cause: error });
}

/** oclif's message without its colours and without the "See more help" line it appends. */
function plain(error: Error): string {
  const lines = stripVTControlCharacters(error.message).split('\n');
  const kept = lines.filter((line) => !/^See more help with/.test(line));
  return kept.join('\n').trim();
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
    // stderr reaches a CI job log too, where the runner parses workflow commands from it just
    // as from stdout: agent text in a message (a planted ref's file name) must start none.
    process.stderr.write(
      `${neutralizeWorkflowCommands(escapeForTerminal(renderErrorText(error)))}\n`,
    );
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
