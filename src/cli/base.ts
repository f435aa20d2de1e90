/**
 * The shared base of every command: owns `--json`, progress, error rendering and exit codes, so
 * that the product's promise (0 ok, 1 contradicted, 2 bad usage or input, 3 integrity, 4 a bug
 * in ledger) holds in both output modes. oclif's own JSON mode turns `this.error(msg, {exit: 3})`
 * into exit 1 and dumps its whole config on an unknown flag; neither reaches the user from here.
 *
 * A new command: extend LedgerCommand, implement `execute()` returning `{json, text}`, and add
 * one line for its JSON output to `src/cli/json/index.ts`.
 */
import { Command, Flags } from '@oclif/core';
import { EXIT, type ExitCode } from '../model/errors.js';
import { bugPoint } from '../model/faults.js';
import { escapeForTerminal, sanitizeLine, toTerminalJson } from '../paths/index.js';
import { neutralizeWorkflowCommands } from './annotations.js';
import { reportFailure, toFailure } from './errors.js';
import { wantsJson } from './argv.js';
import { Progress } from './progress.js';

/** Lines per write when a command's text comes as lines. */
const TEXT_BLOCK_LINES = 2000;

export interface Output {
  /** What `--json` prints. */
  json: unknown;
  /**
   * What a person sees. Lines (joined with newlines) when the output can be large: they are
   * escaped and written a block at a time, never copied whole (a 100,000-record verify prints
   * 100 MB of text).
   */
  text: string | readonly string[];
  /**
   * What a person must also know (a lowered status and its reasons): printed on stderr after
   * `text`, so that stdout stays exactly the result a script captures. Not printed with --json,
   * whose output carries it.
   */
  notice?: string;
  exitCode?: ExitCode;
}

export abstract class LedgerCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: 'Print machine-readable JSON on stdout.', default: false }),
  };

  protected abstract execute(): Promise<Output>;

  protected get wantsJson(): boolean {
    return wantsJson(this.argv);
  }

  // Every byte a command prints goes through one of the writers below, and each escapes what
  // it prints (src/paths/terminal.ts): progress lines carry witness commands and remote names,
  // text carries record fields — all of it may come from an agent, a collaborator or the
  // repository's config. The linter refuses process.stdout/stderr writes anywhere else.

  private progressLine: Progress | undefined;

  /**
   * Progress for long work, for `onProgress` options: each call says what is running now. On a
   * terminal it shows on stderr, escaped, with the time it has been running; otherwise it is
   * silent.
   */
  protected progress = (message: string): void => {
    this.progressLine ??= new Progress({
      stream: process.stderr,
      enabled: !this.wantsJson && process.stderr.isTTY === true,
    });
    this.progressLine.report(message);
  };

  /** A one-line remark for a person at a terminal (on stderr, escaped), never part of the output. */
  protected remark(message: string): void {
    if (!this.wantsJson && process.stderr.isTTY) process.stderr.write(`${sanitizeLine(message)}\n`);
  }

  /** A line on stderr whatever the output mode (a loss report, a warning), escaped. */
  protected warnLine(message: string): void {
    // Read by a CI runner as well: neutralized like the error text (src/cli/errors.ts).
    process.stderr.write(`${neutralizeWorkflowCommands(sanitizeLine(message))}\n`);
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
      bugPoint('command');
      output = await this.execute();
    } catch (error) {
      // A parse failure was handled here; oclif would otherwise warn (outside production) that
      // the command "did not parse its arguments".
      this.parsed = true;
      this.progressLine?.done();
      process.exitCode = reportFailure(
        toFailure(error, { command: this.id ?? '', flagNames: this.flagNames() }),
        this.wantsJson,
      );
      return;
    }
    this.progressLine?.done();
    if (this.wantsJson) process.stdout.write(`${toTerminalJson(output.json)}\n`);
    else {
      if (typeof output.text !== 'string') {
        for (let at = 0; at < output.text.length; at += TEXT_BLOCK_LINES)
          process.stdout.write(
            `${escapeForTerminal(output.text.slice(at, at + TEXT_BLOCK_LINES).join('\n'))}\n`,
          );
      } else if (output.text !== '') {
        const text = escapeForTerminal(output.text);
        process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      }
      if (output.notice)
        process.stderr.write(
          `${neutralizeWorkflowCommands(escapeForTerminal(output.notice.replace(/\n$/, '')))}\n`,
        );
    }
    process.exitCode = output.exitCode ?? EXIT.ok;
  }

  /** The command's flags by name, for "did you mean" on a misspelt one. */
  private flagNames(): string[] {
    const ctor = this.constructor as typeof LedgerCommand;
    return Object.keys({ ...ctor.baseFlags, ...ctor.flags });
  }
}
