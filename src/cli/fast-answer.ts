/**
 * The tail every fast path that must answer once shares (record, verify, sync): load the
 * command's body with the command base's writers, and from the moment they are loaded answer
 * whatever happens — a status line on stderr while it runs, the output or the failure through
 * the same writers src/cli/base.ts uses, so the fast path and oclif print the same bytes and
 * exit with the same code.
 *
 * Before the body starts nothing has been read, run or written, so a module that fails to load
 * hands the command line back to oclif (false); after, it never does (true): a record reads stdin
 * and runs witnesses, a sync pushes, and neither may happen twice.
 */
import { bugPoint } from '../model/faults.js';
import type { Output } from './output.js';

export interface FastSteps {
  /** Reports what runs now (a status line on a terminal, lines with `--progress`). */
  progress: (message: string) => void;
  /** A warning line on stderr, as the command base prints it. */
  warnLine: (message: string) => void;
}

export interface FastAnswer<View> {
  /** The command's body module, imported beside the writers. */
  view: () => Promise<View>;
  json: boolean;
  /** `verify --progress`: one line per message, even off a terminal. */
  progressLines?: boolean;
  /** The command's body: its output, or a throw that is reported as the command base would. */
  run: (view: View, steps: FastSteps) => Promise<Output>;
}

/** True: answered, whatever the outcome; false: nothing was done, oclif must answer it. */
export async function answerFast<View>(answer: FastAnswer<View>): Promise<boolean> {
  let loaded;
  try {
    loaded = await Promise.all([
      answer.view(),
      import('./output.js'),
      import('./progress.js'),
      import('./report-failure.js'),
    ]);
  } catch {
    return false; // nothing was read, run or written yet: the full path starts over
  }
  const [view, { writeOutput, warnLine }, { Progress }, { reportFailure, toPlainFailure }] = loaded;
  // From here on the command has begun. The command base's own steps (src/cli/base.ts run()).
  const lines = answer.progressLines === true;
  let progressLine: InstanceType<typeof Progress> | undefined;
  const progress = (message: string): void => {
    progressLine ??= new Progress({
      stream: process.stderr,
      enabled: lines || (!answer.json && process.stderr.isTTY === true),
      lines,
    });
    progressLine.report(message);
  };
  let output;
  try {
    bugPoint('command');
    output = await answer.run(view, { progress, warnLine });
  } catch (error) {
    progressLine?.done();
    process.exitCode = reportFailure(toPlainFailure(error), answer.json);
    return true;
  }
  progressLine?.done();
  writeOutput(output, answer.json);
  return true;
}
