/**
 * What an auditor can do when a re-run disagrees with its record for a reason of the sandbox,
 * not of the claim (red team, round ten): the re-run keeps its verdict — downgrading it would
 * give a liar a way out — and the check's detail says how to prepare the checkout or the view.
 */
import { existsSync } from 'node:fs';
import type { RerunHint } from '../../verify/types.js';

/** An absolute path a shell or `exec` could not find: `…: /x/y: No such file or directory`. */
const MISSING_PATH = /(\/[^\s:'"`]+)'?: (?:No such file or directory|not found)/;

/** A stderr line that reads as the error rather than a stack frame or a summary. */
const ERROR_LINE =
  /(?:^|\s)(?:\w*Error|error|ERROR|fatal|FATAL)(?:\[\w+\])?:|No such file or directory|: not found|\b[Cc]annot\b/;

/**
 * `stderr` is the run's masked output (as the report shows it). `exists` is asked on this
 * machine: a path that exists here but was missing in the sandbox is outside its view.
 */
export function rerunHints(
  run: { exitCode: number | null; timedOut: boolean; stderr: string },
  policy: { hasSetup: boolean },
  exists: (path: string) => boolean = existsSync,
): RerunHint[] {
  const hints: RerunHint[] = [];
  if (run.exitCode === 126 || run.exitCode === 127) {
    const missing = MISSING_PATH.exec(run.stderr)?.[1];
    if (missing !== undefined && exists(missing))
      hints.push({
        text: `${missing} exists on this machine but not in the sandbox's view: if the witness needs it, add it or a directory above it to the policy's rerun.isolation.readOnly`,
      });
  }
  if (!policy.hasSetup && !run.timedOut && run.exitCode !== 0) {
    const first = run.stderr.split('\n').find((line) => ERROR_LINE.test(line));
    hints.push({
      text:
        'the re-run uses a clean checkout of the candidate tree: no git-ignored files (node_modules…), no .git, a throw-away HOME with no git identity; if the witness needs them, prepare the checkout with the policy’s rerun.setup steps (npm ci --offline; git init, add and commit; git config --global user.email …)' +
        (first === undefined ? '' : `; first error line of stderr: ${cut(first.trim())}`),
      ifRecordedPassed: true,
    });
  }
  return hints;
}

function cut(line: string, width = 200): string {
  return line.length > width ? `${line.slice(0, width)}…` : line;
}
