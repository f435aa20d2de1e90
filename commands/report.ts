import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { writeReport } from '../src/app/report.js';
import { LedgerError } from '../src/model/errors.js';
import { expandStdinIds } from '../src/cli/stdin-ids.js';
import { sanitizeLine } from '../src/paths/index.js';

export default class Report extends LedgerCommand {
  static override summary =
    'Write the audit of the ledger as one self-contained HTML page (or Markdown).';
  static override description =
    'Verifies the records exactly as ledger verify does (same policy, same checks) and writes ' +
    'what an auditor reads: each record with its claimed and effective status, every check with ' +
    'its verdict, subject and detail, the artifacts, anchors, witnesses and signatures; ' +
    'contradicted records first, with filters by verdict and task. The page loads nothing from ' +
    'anywhere (inline style and script only, pinned by a Content-Security-Policy). --markdown ' +
    'writes a short summary for a CI job (- prints it). Exit code as ledger verify gives it.';
  static override examples = [
    '<%= config.bin %> report --html audit.html',
    '<%= config.bin %> report sha256:3f2a sha256:9c1d --html audit.html --policy ~/audit/policy.json',
    '<%= config.bin %> report --strict --markdown - >> "$GITHUB_STEP_SUMMARY"',
  ];
  static override strict = false;
  static override args = {
    ids: Args.string({
      description: 'Record ids or unique prefixes (default: all); - reads them from stdin.',
      // A CI step with something piped in reports on the whole ledger, never on the pipe.
      ignoreStdin: true,
    }),
  };
  static override flags = {
    html: Flags.string({ description: 'Write the HTML page to this file.' }),
    markdown: Flags.string({ description: 'Write a Markdown summary to this file (- prints it).' }),
    policy: Flags.string({
      description:
        'Policy file, as for ledger verify (default: git config --global ledger.policy).',
    }),
    strict: Flags.boolean({
      description: 'Unverifiable claims fail too, as verify --strict.',
      default: false,
    }),
    rerun: Flags.boolean({
      description: 'Re-run the witnesses the policy allows, as verify --rerun.',
      default: false,
    }),
    head: Flags.string({
      description: 'The commit under review must be what was recorded, as verify --head.',
    }),
    since: Flags.string({
      description:
        'Only the records added since REV (a ledger tip or a base-branch commit), as verify --since.',
    }),
  };

  protected async execute(): Promise<Output> {
    const { argv, flags } = await this.parse(Report);
    const ids = await expandStdinIds((argv as string[]).filter((a) => a !== ''));
    if (flags.html === undefined && flags.markdown === undefined && !this.wantsJson)
      throw new LedgerError('USAGE', 'give --html FILE or --markdown FILE (or --json)', {
        hint: 'ledger report --html audit.html',
      });
    if (flags.markdown === '-' && this.wantsJson)
      throw new LedgerError(
        'USAGE',
        '--markdown - prints the summary itself; it cannot go with --json',
      );
    const outcome = await writeReport({
      cwd: process.cwd(),
      ...(ids.length > 0 ? { ids } : {}),
      ...(flags.policy === undefined ? {} : { policyFile: flags.policy }),
      strict: flags.strict,
      rerun: flags.rerun,
      ...(flags.head === undefined ? {} : { head: flags.head }),
      ...(flags.since === undefined ? {} : { since: flags.since }),
      ...(flags.html === undefined ? {} : { htmlFile: flags.html }),
      ...(flags.markdown === undefined ? {} : { markdownFile: flags.markdown }),
      onProgress: this.progress,
    });
    const { report, written } = outcome;
    if (outcome.markdown !== undefined)
      return { json: null, text: outcome.markdown, exitCode: report.exitCode as 0 | 1 | 3 };
    const { counts } = report;
    const lines = [
      ...Object.values(written).map((path) => `wrote ${sanitizeLine(path)}`),
      `${report.records.length} record(s): ${counts.contradicted} contradicted, ${counts.unverifiable} unverifiable, ` +
        `${counts.stale} stale, ${counts.verified} verified check(s) — exit ${report.exitCode}`,
    ];
    return {
      json: { ok: report.ok, exitCode: report.exitCode, written, report },
      text: lines.join('\n'),
      exitCode: report.exitCode as 0 | 1 | 3,
    };
  }
}
