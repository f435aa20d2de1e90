/**
 * `ledger verify`'s body, without oclif: commands/verify.ts gives it the parsed flags, and
 * bin/run.js calls it directly (src/cli/fast-verify.ts) for a command line it fully
 * understands, so that a verify after every agent step pays no start-up for oclif (issue 21).
 * One body for both paths, so they cannot verify or answer differently.
 */
import { setFlagsFromString } from 'node:v8';
import { verifyRepository } from '../app/verify.js';
import { toVerifyJson } from '../app/views.js';
import { LedgerError, type ExitCode } from '../model/errors.js';
import { sanitizeLine } from '../paths/index.js';
import { toGithubAnnotations } from './annotations.js';
import type { Output } from './output.js';
import { renderVerifyText } from './render-verify.js';

/** The flags of `ledger verify` as oclif hands them over (defaults applied). */
export interface VerifyFlags {
  rerun: boolean;
  strict: boolean;
  worktree: boolean;
  policy?: string | undefined;
  timeout?: number | undefined;
  record: boolean;
  sign?: boolean | undefined;
  'signing-key'?: string | undefined;
  annotations?: string | undefined;
  full: boolean;
  head?: string | undefined;
  since?: string | undefined;
  jobs?: number | undefined;
  'require-isolation': boolean;
  progress: boolean;
  markdown?: string | undefined;
  html?: string | undefined;
  'from-attestation': boolean;
}

/** What the body needs of the command around it. */
export interface VerifyContext {
  /** `--json` was asked for. */
  json: boolean;
  /** Progress for long work (the command base's, or the fast path's). */
  progress: (message: string) => void;
  /** A line on stderr whatever the output mode, escaped. */
  warnLine: (message: string) => void;
}

/** Verifies the repository at `cwd` as the flags ask; what `verify` prints. */
export async function verifyView(
  cwd: string,
  ids: readonly string[],
  flags: VerifyFlags,
  context: VerifyContext,
): Promise<Output> {
  // V8 lets the old generation grow to about 3.5× what survives a collection when the program
  // is busy (measured on 100,000 records: ~100 MB live, 400+ MB heap, 560 MB peak RSS). A
  // growth factor of 1.25 keeps the peak near what is live, for a few percent more GC time.
  // Set here, in the command's own process, never by the library inside someone else's.
  setFlagsFromString('--heap-growing-percent=25');
  if (flags.jobs !== undefined && !flags.rerun)
    throw new LedgerError('USAGE', '--jobs bounds re-runs: it needs --rerun', {
      hint: 'ledger verify --rerun --jobs 4',
    });
  if (flags['require-isolation'] && !flags.rerun)
    throw new LedgerError('USAGE', '--require-isolation is about re-runs: it needs --rerun', {
      hint: 'ledger verify --rerun --require-isolation',
    });
  if (flags.markdown === '-' || flags.html === '-')
    throw new LedgerError(
      'USAGE',
      'verify prints its own report on stdout: --markdown and --html take a file',
      {
        hint: 'ledger verify --markdown summary.md (or ledger report --markdown - to print it)',
      },
    );
  const audit = flags.markdown !== undefined || flags.html !== undefined;
  const now = new Date();
  const report = await verifyRepository({
    cwd,
    ...(ids.length > 0 ? { ids } : {}),
    rerun: flags.rerun,
    strict: flags.strict,
    worktree: flags.worktree,
    ...(flags.policy ? { policyFile: flags.policy } : {}),
    ...(flags.timeout ? { timeoutMs: flags.timeout * 1000 } : {}),
    record: flags.record,
    fromAttestation: flags['from-attestation'],
    cache: !flags.full,
    ...(flags.head === undefined ? {} : { head: flags.head }),
    ...(flags.since === undefined ? {} : { since: flags.since }),
    // Text output shows only what did not verify: a large ledger's passed checks are counted.
    // The audit page lists every check, as the JSON does.
    keepVerified: context.json || audit,
    now,
    ...(flags.sign === undefined ? {} : { sign: flags.sign }),
    ...(flags['signing-key'] === undefined
      ? {}
      : { signingKey: flags['signing-key'], sign: flags.sign ?? true }),
    ...(flags.jobs === undefined ? {} : { jobs: flags.jobs }),
    ...(flags['require-isolation'] ? { requireIsolation: true } : {}),
    onProgress: context.progress,
  });
  const wrote: string[] = [];
  let exitCode: ExitCode = report.exitCode;
  if (audit) {
    try {
      // Loaded only when asked for: the page's renderers are not part of a plain verify.
      const { renderReport } = await import('../app/report.js');
      const { written } = await renderReport(
        {
          cwd,
          ...(ids.length > 0 ? { ids } : {}),
          ...(flags.policy ? { policyFile: flags.policy } : {}),
          strict: flags.strict,
          now,
          ...(flags.html === undefined ? {} : { htmlFile: flags.html }),
          ...(flags.markdown === undefined ? {} : { markdownFile: flags.markdown }),
        },
        report,
      );
      wrote.push(...Object.values(written).map((path) => `wrote ${sanitizeLine(path)}`));
    } catch (error) {
      // The verdicts stand: a page that cannot be written never hides a failure (exit 1, 3)
      // behind a usage error, and never lets a passing run look clean.
      context.warnLine(`the audit could not be written: ${(error as Error).message}`);
      if (exitCode === 0) exitCode = 2;
    }
  }
  const annotations =
    flags.annotations === 'github' ? toGithubAnnotations(report, flags.strict) : undefined;
  const json = context.json
    ? { ...toVerifyJson(report), ...(annotations ? { annotations } : {}) }
    : undefined;
  // --json prints only `json`: the text of 1,000 records' 20,000 checks was built and dropped.
  const lines = context.json ? [] : renderVerifyText(report, wrote);
  // In a CI log, agent text must not become a workflow command: ledger's own annotations
  // first, then the human text fenced and neutralized (the command base, src/cli/base.ts).
  return {
    json,
    text: lines,
    ...(annotations ? { workflowCommands: annotations } : {}),
    exitCode,
  };
}
