import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { ANNOTATION_FORMATS } from '../src/cli/annotations.js';
import { expandStdinIds } from '../src/cli/stdin-ids.js';
import { verifyView } from '../src/cli/verify-view.js';
import { MAX_TIMEOUT_SECONDS } from '../src/model/vocabulary.js';

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
    timeout: Flags.integer({
      description: 'Seconds before a re-run witness is killed.',
      min: 1,
      max: MAX_TIMEOUT_SECONDS,
    }),
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
    'require-isolation': Flags.boolean({
      description:
        "With --rerun: re-run nothing (exit 2) unless bubblewrap or unshare can isolate the witnesses here, whatever the policy's rerun.isolation.required says. For CI: a witness run without isolation runs as the job's user, with the job's files and environment.",
      default: false,
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
    const ids = await expandStdinIds((argv as string[]).filter((a) => a !== ''));
    this.progressLines = flags.progress;
    return verifyView(process.cwd(), ids, flags, {
      json: this.wantsJson,
      progress: this.progress,
      warnLine: (message) => this.warnLine(message),
    });
  }
}
