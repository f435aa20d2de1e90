/**
 * `ledger verify --annotations github`: one CI annotation per claim that did not hold, placed
 * on its file and line where the check names one, in GitHub Actions' workflow-command syntax
 * (`::error file=…,line=…,title=…::message`). Other CI systems can read the same lines.
 *
 * Agent text ends up in these lines, and a workflow command is parsed by the runner from the
 * job log: a newline in a subject could start a command of its own (`::add-mask::`,
 * `::stop-commands::`). So text is first made one safe line (`sanitizeLine`), then escaped by
 * GitHub's own rules — data: `%` `\r` `\n`; properties: also `:` and `,` — exactly as
 * @actions/core's `issueCommand` does.
 *
 * The runner reads commands in two syntaxes (actions/runner, `ActionCommand.cs`): `::cmd …::data`
 * at the start of a line after leading whitespace (`TryParseV2`), and the legacy `##[cmd …]data`
 * ANYWHERE in a line (`TryParse`). Escaping the data does not touch the second, so every other
 * line verify prints — human text, with agent text in it — goes inside a fence
 * (`::stop-commands::TOKEN` … `::TOKEN::`, `githubFence`, written by the command base around
 * its text when a command returns `workflowCommands`), where the runner processes no command
 * but the one resuming with TOKEN, a random value the agent cannot know in advance. And in every
 * line of every command, `##[` is written `##\[` (`neutralizeWorkflowCommands`, applied by the
 * base's `printableText`): visible, readable as what it was, never a command (the runner's log
 * viewer also draws `##[group]` and `##[error]` lines of its own). An invisible character
 * between `##` and `[` is no way round this: it is shown as an escape first.
 */
import { nodeCrypto } from '../model/node-crypto.js';
import { checkRepoPath, neutralizeWorkflowCommands, sanitizeLine } from '../paths/index.js';
import type { Check, RecordReport, VerifyReport } from '../verify/types.js';

// Where every printed line is made to start no command (`printableText`, the command base).
export { neutralizeWorkflowCommands };

export const ANNOTATION_FORMATS = ['github'] as const;
export type AnnotationFormat = (typeof ANNOTATION_FORMATS)[number];

/** Checks whose subject is a repository path (`reference`, `finding`: `path` or `path:line`). */
const PATH_CHECKS = new Set(['artifact', 'claim.artifact', 'artifact.worktree']);

export interface Location {
  file?: string;
  line?: number;
}

/** Where in the repository a check points, when its subject names a safe path. */
export function locationOf(check: Check): Location {
  let path: string | undefined;
  let line: number | undefined;
  if (check.check === 'reference' || check.check === 'finding') {
    const match = /^(.*):([1-9]\d{0,8})$/.exec(check.subject);
    path = match ? match[1] : check.subject;
    line = match ? Number(match[2]) : undefined;
  } else if (PATH_CHECKS.has(check.check)) {
    path = check.subject;
  }
  if (path === undefined) return {};
  const safe = checkRepoPath(path);
  if (!safe.ok) return {};
  return { file: safe.path, ...(line === undefined ? {} : { line }) };
}

export function escapeGithubData(text: string): string {
  // Mid-line, after `::error …::`: only the legacy syntax could start here.
  return neutralizeLegacyCommands(
    sanitizeLine(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'),
  );
}

/** `##[` written `##\[`: the runner's legacy syntax starts anywhere in a line. */
function neutralizeLegacyCommands(text: string): string {
  return text.replace(/##\[/g, '##\\[');
}

/**
 * The lines that stop and resume the runner's command processing around human text, with a
 * fresh random token: a command inside (other than `::TOKEN::`) is printed, not run.
 */
export function githubFence(token = nodeCrypto().randomBytes(16).toString('hex')): {
  open: string;
  close: string;
} {
  const name = `ledger-${token}`;
  return { open: `::stop-commands::${name}`, close: `::${name}::` };
}

/**
 * Verify's output for a GitHub job log: its annotations, outside the fence so that the runner
 * acts on them, then every human line neutralized, inside a fence.
 */
export function forGithubLog(annotations: readonly string[], text: readonly string[]): string[] {
  const fence = githubFence();
  return [...annotations, fence.open, ...text.map(neutralizeWorkflowCommands), fence.close];
}

export function escapeGithubProperty(text: string): string {
  return escapeGithubData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * The annotation lines for a verify report: `error` for each contradicted check (ledger-wide
 * and per record), and with `strict` a `warning` for each unverifiable one (it fails the gate
 * too); a `notice` instead for those of a record a lifecycle step resolved. Verified and stale
 * checks get none.
 */
export function toGithubAnnotations(report: VerifyReport, strict: boolean): string[] {
  const lines: string[] = [];
  const add = (check: Check, record: RecordReport | undefined) => {
    const failing =
      check.verdict === 'contradicted'
        ? 'error'
        : strict && check.verdict === 'unverifiable'
          ? 'warning'
          : undefined;
    if (failing === undefined) return;
    // A record a lifecycle step resolved is still named, but does not fail the job.
    const resolved = record?.lifecycle?.resolved === true && !check.integrity;
    const level = resolved ? 'notice' : failing;
    const { file, line } = locationOf(check);
    const properties = [
      ...(file === undefined ? [] : [`file=${escapeGithubProperty(file)}`]),
      ...(line === undefined ? [] : [`line=${line}`]),
      `title=${escapeGithubProperty(`ledger ${check.check}: ${check.verdict}${check.integrity ? ' (integrity)' : ''}`)}`,
    ];
    const where = record === undefined ? 'ledger' : `record ${record.id.slice(0, 19)}`;
    const message = `${check.subject}: ${check.detail} (${where}${resolved ? `; ${record!.lifecycle!.detail}` : ''})`;
    lines.push(`::${level} ${properties.join(',')}::${escapeGithubData(message)}`);
  };
  for (const check of report.ledger) add(check, undefined);
  for (const r of report.records) for (const check of r.checks) add(check, r);
  return lines;
}
