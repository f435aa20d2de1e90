/**
 * The hook's options as typed on a command line (`ledger hook claude-code` and
 * `ledger init --claude-code` take the same ones), checked in one place: every problem at once.
 */
import { LedgerError, type Problem } from '../../model/errors.js';
import { FORMATS, type FormatName } from '../../model/vocabulary.js';

/** The hook events at which an agent hands over: the main agent's and a subagent's stop. */
export const STOP_EVENTS = ['Stop', 'SubagentStop'] as const;
export type StopEvent = (typeof STOP_EVENTS)[number];

export const BLOCK_MODES = ['never', 'refused', 'lowered'] as const;
/** `refused`: block a handoff ledger refuses; `lowered`: also one whose evidence lowers its status. */
export type BlockMode = (typeof BLOCK_MODES)[number];

export interface HookFlags {
  witness?: readonly string[] | undefined;
  'witness-timeout'?: number | undefined;
  block?: string | undefined;
  format?: string | undefined;
  sign?: boolean | undefined;
  'signing-key'?: string | undefined;
}

export interface HookOptions {
  /** Witness commands run when a handoff is recorded (from the hook's command line only). */
  witnesses: readonly string[];
  witnessTimeoutSeconds?: number;
  block?: BlockMode;
  /** Parse every final message as this format instead of detecting one. */
  format?: FormatName;
  /**
   * `--sign` on the hook's command line: records get a recorder signature ("recorded by
   * <signer>'s ledger"). Never `ledger.sign`: the handoff is the agent's, not the user's.
   */
  sign?: { signingKey?: string };
}

/** Typed options from flags; a usage error listing every bad flag. */
export function hookOptionsFrom(flags: HookFlags, what: string): HookOptions {
  const problems: Problem[] = [];
  if (flags.block !== undefined && !(BLOCK_MODES as readonly string[]).includes(flags.block)) {
    problems.push({
      path: 'block',
      message: 'unknown mode',
      expected: BLOCK_MODES.join(' | '),
      got: flags.block,
    });
  }
  if (flags.format !== undefined && !(FORMATS as readonly string[]).includes(flags.format)) {
    problems.push({
      path: 'format',
      message: 'unknown format',
      expected: FORMATS.join(' | '),
      got: flags.format,
    });
  }
  for (const [i, w] of (flags.witness ?? []).entries())
    if (w.trim() === '') problems.push({ path: `witness[${i}]`, message: 'empty witness command' });
  if (problems.length > 0) {
    throw new LedgerError('USAGE', `${what}: ${problems.length} problem(s) in the flags`, {
      problems,
      hint: 'Nothing was written. See --help for the flags.',
    });
  }
  return {
    witnesses: flags.witness ?? [],
    ...(flags['witness-timeout'] === undefined
      ? {}
      : { witnessTimeoutSeconds: flags['witness-timeout'] }),
    ...(flags.block === undefined ? {} : { block: flags.block as BlockMode }),
    ...(flags.format === undefined ? {} : { format: flags.format as FormatName }),
    ...(flags.sign === true
      ? {
          sign: flags['signing-key'] === undefined ? {} : { signingKey: flags['signing-key'] },
        }
      : {}),
  };
}
