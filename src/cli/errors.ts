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
import { EXIT, isLedgerError, LedgerError, type Problem } from '../model/errors.js';
import { toPlainFailure, type Failure } from './report-failure.js';
import { closestFlag } from './suggest.js';

export { renderErrorText, reportFailure, type Failure } from './report-failure.js';

/** What the failing command can tell about itself, for a suggestion. */
export interface FailureContext {
  /** The command's id (`record`), when a command was running. */
  command?: string;
  /** Its flags' names without dashes, to suggest the one a misspelt flag meant. */
  flagNames?: readonly string[];
}

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
  return toPlainFailure(error);
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
