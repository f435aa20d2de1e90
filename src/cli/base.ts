/**
 * The shared base of every command: owns `--json`, error rendering and exit codes, so that the
 * product's promise (0 ok, 1 contradicted, 2 bad usage or input, 3 integrity) holds in both
 * output modes. oclif's own JSON mode turns `this.error(msg, {exit: 3})` into exit 1 and dumps
 * its whole config on an unknown flag; neither reaches the user from here.
 */
import { Command, Flags } from '@oclif/core';
import { EXIT, isLedgerError, LedgerError, type ExitCode } from '../model/errors.js';
import { escapeForTerminal, sanitizeLine, toTerminalJson } from '../paths/index.js';

export interface Output {
  /** What `--json` prints. */
  json: unknown;
  /** What a person sees. */
  text: string;
  exitCode?: ExitCode;
}

export abstract class LedgerCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: 'Print machine-readable JSON on stdout.', default: false }),
  };

  protected abstract execute(): Promise<Output>;

  protected get wantsJson(): boolean {
    return this.argv.includes('--json');
  }

  // Every byte a command prints goes through one of the writers below, and each escapes what
  // it prints (src/paths/terminal.ts): progress lines carry witness commands and remote names,
  // text carries record fields — all of it may come from an agent, a collaborator or the
  // repository's config. The linter refuses process.stdout/stderr writes anywhere else.

  /** Progress for long work: on stderr, one escaped line, only for a person at a terminal. */
  protected progress = (message: string): void => {
    if (!this.wantsJson && process.stderr.isTTY)
      process.stderr.write(`… ${sanitizeLine(message)}\n`);
  };

  /** A one-line remark for a person at a terminal (on stderr, escaped), never part of the output. */
  protected remark(message: string): void {
    if (!this.wantsJson && process.stderr.isTTY) process.stderr.write(`${sanitizeLine(message)}\n`);
  }

  /** A line on stderr whatever the output mode (a loss report, a warning), escaped. */
  protected warnLine(message: string): void {
    process.stderr.write(`${sanitizeLine(message)}\n`);
  }

  /**
   * Bytes exactly as stored, for a pipe or a file; escaped for a terminal, where an agent's
   * escape sequences would otherwise run.
   */
  protected writeOriginal(bytes: Uint8Array): void {
    process.stdout.write(
      process.stdout.isTTY ? escapeForTerminal(Buffer.from(bytes).toString('utf8')) : bytes,
    );
  }

  async run(): Promise<void> {
    let output: Output;
    try {
      output = await this.execute();
    } catch (error) {
      this.fail(error);
      return;
    }
    if (this.wantsJson) process.stdout.write(`${toTerminalJson(output.json)}\n`);
    else if (output.text !== '') {
      const text = escapeForTerminal(output.text);
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
    process.exitCode = output.exitCode ?? EXIT.ok;
  }

  private fail(error: unknown): void {
    const ledgerError = toLedgerError(error);
    if (this.wantsJson) {
      process.stdout.write(`${toTerminalJson({ ok: false, error: ledgerError.toJSON() })}\n`);
    } else {
      const lines = [`ledger: ${ledgerError.message}`];
      for (const p of ledgerError.problems) {
        const where = p.path === '' ? '' : `${p.path}: `;
        const expected =
          p.expected === undefined
            ? ''
            : ` (expected ${p.expected}${p.got === undefined ? '' : `, got ${p.got}`})`;
        lines.push(`  - ${where}${p.message}${expected}`);
      }
      if (ledgerError.hint) lines.push(ledgerError.hint);
      process.stderr.write(`${escapeForTerminal(lines.join('\n'))}\n`);
    }
    process.exitCode = ledgerError.exitCode;
  }
}

/** oclif's parse errors are usage errors; anything unexpected is reported, not dumped. */
function toLedgerError(error: unknown): LedgerError {
  if (isLedgerError(error)) return error;
  const e = error as { message?: string; oclif?: { exit?: number }; name?: string };
  const message = (e?.message ?? String(error)).split('\nSee more help')[0]!.trim();
  if (
    e?.oclif !== undefined ||
    /flag|argument|Unexpected|Missing|Expected/i.test(e?.name ?? '') ||
    /Nonexistent flag|Unexpected argument|Missing required|Expected .* to be one of/i.test(message)
  ) {
    return new LedgerError('USAGE', message, {
      hint: 'See ledger <command> --help for the flags and examples.',
    });
  }
  return new LedgerError('USAGE', `unexpected failure: ${message}`, {
    hint: 'This is a bug in ledger; please report it with the command you ran.',
    cause: error,
  });
}
