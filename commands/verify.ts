import { setFlagsFromString } from 'node:v8';
import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { LedgerError, type ExitCode } from '../src/model/errors.js';
import { verifyRepository } from '../src/app/verify.js';
import { toVerifyJson } from '../src/app/views.js';
import { ANNOTATION_FORMATS, toGithubAnnotations } from '../src/cli/annotations.js';
import { renderVerifyText } from '../src/cli/render-verify.js';
import { sanitizeLine } from '../src/paths/index.js';
import { expandStdinIds } from '../src/cli/stdin-ids.js';

export default class Verify extends LedgerCommand {
  static override summary = 'Recompute what the records assert, and give every claim a verdict.';
  static override description =
    'Checks record ids against their bytes, canonical encoding, the log chain, anchors, artifact ' +
    'digests against the recorded candidate trees, claimed artifacts and file:line references. ' +
    'With --rerun, re-runs witnesses in a throw-away checkout of the candidate tree — only those ' +
    'the policy allows (by default: the --witness commands of records made in this clone, never ' +
    'commands the agent wrote) — isolated with bubblewrap or unshare where possible (the report ' +
    'says which). Verdicts: verified, contradicted, ' +
    'unverifiable, stale. Exit 0 ok, 1 a claim was contradicted (or, with --strict, unverifiable), ' +
    '3 the ledger data is damaged or was tampered with.';
  static override examples = [
    '<%= config.bin %> verify',
    '<%= config.bin %> verify sha256:3f2a --rerun',
    '<%= config.bin %> verify --full --rerun --jobs 4 --progress   # four trees at a time, record k/N on stderr',
    '<%= config.bin %> log --json | jq -r ".[].id" | <%= config.bin %> verify -',
    '<%= config.bin %> verify --json --strict',
    '<%= config.bin %> verify --worktree',
    '<%= config.bin %> verify --strict --annotations github   # in a CI job',
    '<%= config.bin %> verify --full   # ignore the verified-state cache, re-check every record',
    '<%= config.bin %> verify --strict --head "$PR_HEAD_SHA"   # the reviewed commit is what was recorded',
    '<%= config.bin %> verify --strict --since "$PR_BASE_SHA" --head "$PR_HEAD_SHA"   # only what the pull request adds',
  ];
  static override strict = false;
  static override args = {
    ids: Args.string({
      description: 'Record ids or unique prefixes (default: all); - reads them from stdin.',
      ignoreStdin: true,
    }),
  };
  static override flags = {
    rerun: Flags.boolean({
      description: 'Re-run allowed witnesses in a clean checkout.',
      default: false,
    }),
    strict: Flags.boolean({
      description: 'Also fail when a claim is unverifiable.',
      default: false,
    }),
    worktree: Flags.boolean({
      description: 'Also compare recorded artifacts with the work tree now (stale when changed).',
      default: false,
    }),
    policy: Flags.string({
      description:
        'Policy file: trusted signers, required signatures, witnesses that may re-run (default: git config --global ledger.policy).',
    }),
    timeout: Flags.integer({ description: 'Seconds before a re-run witness is killed.', min: 1 }),
    record: Flags.boolean({
      description: 'Store the verdicts in the ledger as an attestation per record.',
      default: false,
    }),
    sign: Flags.boolean({
      description: 'Sign the attestations (default: git config --global ledger.sign).',
      allowNo: true,
    }),
    'signing-key': Flags.string({ description: 'SSH key to sign attestations with.' }),
    annotations: Flags.string({
      description:
        'Also print one CI annotation per claim that did not hold, on its file and line (github: ::error file=…,line=…::…).',
      options: [...ANNOTATION_FORMATS],
    }),
    full: Flags.boolean({
      description:
        'Re-check every record, ignoring the local cache of the last tip that verified (by default only records new since that tip are checked).',
      default: false,
    }),
    head: Flags.string({
      description:
        'The commit under review (branch, tag or SHA): the newest record on its branch (base commit in its history) must have its tree as candidate tree, else exit 1 (check head.tree).',
    }),
    since: Flags.string({
      description:
        'Check only the records added since REV — a ledger tip, or a commit of the base branch (a record whose base commit and candidate tree are both in its history is not new) — and the whole chain. With --head, the head check is skipped when no record was added.',
    }),
    jobs: Flags.integer({
      description:
        'With --rerun: re-run up to N candidate trees at once, each in its own checkout (default: one per core when witnesses get a network of their own, else 1). Verdicts and output are the same for every N.',
      min: 1,
      max: 256,
    }),
    progress: Flags.boolean({
      description:
        'Print progress (record k/N with the time left, each witness run) as lines on stderr, also when stderr is not a terminal or with --json.',
      default: false,
    }),
    markdown: Flags.string({
      description:
        'Also write the Markdown summary ledger report --markdown writes, from these verdicts (no witness runs again).',
    }),
    html: Flags.string({
      description:
        'Also write the HTML audit page ledger report --html writes, from these verdicts (no witness runs again).',
    }),
    'from-attestation': Flags.boolean({
      description:
        'Take re-run verdicts from attestations signed by a trusted auditor under the same policy.',
      default: false,
    }),
  };

  protected async execute(): Promise<Output> {
    const { argv, flags } = await this.parse(Verify);
    // V8 lets the old generation grow to about 3.5× what survives a collection when the program
    // is busy (measured on 100,000 records: ~100 MB live, 400+ MB heap, 560 MB peak RSS). A
    // growth factor of 1.25 keeps the peak near what is live, for a few percent more GC time.
    // Set here, in the command's own process, never by the library inside someone else's.
    setFlagsFromString('--heap-growing-percent=25');
    const ids = await expandStdinIds((argv as string[]).filter((a) => a !== ''));
    this.progressLines = flags.progress;
    if (flags.jobs !== undefined && !flags.rerun)
      throw new LedgerError('USAGE', '--jobs bounds re-runs: it needs --rerun', {
        hint: 'ledger verify --rerun --jobs 4',
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
      cwd: process.cwd(),
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
      keepVerified: this.wantsJson || audit,
      now,
      ...(flags.sign === undefined ? {} : { sign: flags.sign }),
      ...(flags['signing-key'] === undefined
        ? {}
        : { signingKey: flags['signing-key'], sign: flags.sign ?? true }),
      ...(flags.jobs === undefined ? {} : { jobs: flags.jobs }),
      onProgress: this.progress,
    });
    const wrote: string[] = [];
    let exitCode: ExitCode = report.exitCode;
    if (audit) {
      try {
        // Loaded only when asked for: the page's renderers are not part of a plain verify.
        const { renderReport } = await import('../src/app/report.js');
        const { written } = await renderReport(
          {
            cwd: process.cwd(),
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
        this.warnLine(`the audit could not be written: ${(error as Error).message}`);
        if (exitCode === 0) exitCode = 2;
      }
    }
    const annotations =
      flags.annotations === 'github' ? toGithubAnnotations(report, flags.strict) : undefined;
    const json = this.wantsJson
      ? { ...toVerifyJson(report), ...(annotations ? { annotations } : {}) }
      : undefined;
    // --json prints only `json`: the text of 1,000 records' 20,000 checks was built and dropped.
    const lines = this.wantsJson ? [] : renderVerifyText(report, wrote);
    // In a CI log, agent text must not become a workflow command: ledger's own annotations
    // first, then the human text fenced and neutralized (the command base, src/cli/base.ts).
    return {
      json,
      text: lines,
      ...(annotations ? { workflowCommands: annotations } : {}),
      exitCode,
    };
  }
}
