import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { recordView } from '../src/cli/record-view.js';
import { FORMATS, MAX_TIMEOUT_SECONDS, STATUSES } from '../src/model/vocabulary.js';

export default class RecordCommand extends LedgerCommand {
  static override summary = "Seal an agent's handoff into the ledger.";
  static override description =
    'Reads the handoff (flags and/or --from FILE), observes what it can itself — base commit, ' +
    'candidate tree (a snapshot of the work tree, taken without touching your index), artifact ' +
    'digests, witness exit codes — and stores the record under refs/ledger/. Prints the record id. ' +
    'Nothing is written when any input is invalid (exit 2).';
  static override examples = [
    '<%= config.bin %> record --task T-12 --status success --summary "Add parser" --artifact src/parser.ts --witness "npm test"',
    '<%= config.bin %> record --from handoff.json',
    '<%= config.bin %> record --from HANDOFF.md --format maxsim --witness "npm run build"',
    '<%= config.bin %> record --from .mainark/handoff-42.partial.json --task 42 --evidence validate=.reviews/pr-7.validate.log',
    '<%= config.bin %> record --status success --witness "npm test" --no-keep-output',
    '<%= config.bin %> record --from handoff.json --tracked-only',
    '<%= config.bin %> record --from handoff.json --include-untracked certs/dev-server.key',
  ];
  static override flags = {
    task: Flags.string({ description: 'Task id the run worked on.' }),
    run: Flags.string({ description: 'Run id.' }),
    attempt: Flags.string({ description: 'Attempt id.' }),
    status: Flags.string({ description: `Claimed status: ${STATUSES.join(', ')}.` }),
    summary: Flags.string({ description: 'One-paragraph summary, as the agent reported it.' }),
    intent: Flags.string({ description: 'What the handoff asks for next (e.g. request_review).' }),
    'rework-of': Flags.string({ description: 'Id of the handoff this run reworks.' }),
    producer: Flags.string({
      description: 'Who produced the handoff (agent or person); a claim until signed.',
    }),
    artifact: Flags.string({
      description: 'A file the run produced; digested and stored (repeatable).',
      multiple: true,
    }),
    'include-untracked': Flags.string({
      description:
        'Store this untracked file although it looks secret (.env, *.pem, id_rsa, a token or private key inside); without it such a file is refused (repeatable).',
      multiple: true,
    }),
    'tracked-only': Flags.boolean({
      description:
        'Snapshot tracked files only: untracked files stay out of the candidate tree unless named with --artifact or --include-untracked.',
      default: false,
    }),
    witness: Flags.string({
      description: 'A command whose exit code is evidence; ledger runs it (repeatable).',
      multiple: true,
    }),
    'keep-output': Flags.boolean({
      description:
        "Keep the witnesses' stdout/stderr in the record (values of secret-looking environment variables masked); --no-keep-output keeps only exit codes.",
      default: true,
      allowNo: true,
    }),
    'witness-timeout': Flags.integer({
      description: 'Seconds before a witness is killed.',
      default: 600,
      min: 1,
      max: MAX_TIMEOUT_SECONDS,
    }),
    isolate: Flags.boolean({
      description:
        'Run the witnesses as verify --rerun does: sandboxed, in a copy of the candidate tree, without your HOME, ssh-agent or credentials (the record says how).',
      default: false,
    }),
    base: Flags.string({
      description:
        'The commit the agent started from: a ref or commit id, read as verify --since reads one (a short name must name exactly one ref).',
      default: 'HEAD',
    }),
    from: Flags.string({ description: 'A handoff file (- for stdin).' }),
    format: Flags.string({
      description: `The handoff file's format (default: detected): ${FORMATS.join(', ')}.`,
    }),
    evidence: Flags.string({
      description: 'Keep a file as named evidence: NAME=PATH (repeatable).',
      multiple: true,
    }),
    sign: Flags.boolean({
      description:
        'Sign the record id with your SSH key (default: `git config --global ledger.sign`).',
      allowNo: true,
    }),
    'signing-key': Flags.string({
      description:
        "SSH key to sign with: a private key file, a .pub whose key is in ssh-agent, or key::ssh-… (default: git's user.signingKey).",
    }),
  };

  protected async execute(): Promise<Output> {
    const { flags } = await this.parse(RecordCommand);
    return recordView(process.cwd(), flags, this.progress);
  }
}
