import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { MAX_HANDOFF_FILE_BYTES, recordHandoff, type RecordRequest } from '../src/app/record.js';
import { toRecordJson } from '../src/app/views.js';
import { LedgerError } from '../src/model/errors.js';
import { FORMATS, STATUSES, type FormatName } from '../src/model/vocabulary.js';
import { sanitizeLine } from '../src/paths/index.js';

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
    }),
    isolate: Flags.boolean({
      description:
        'Run the witnesses as verify --rerun does: sandboxed, in a copy of the candidate tree, without your HOME, ssh-agent or credentials (the record says how).',
      default: false,
    }),
    base: Flags.string({ description: 'The commit the agent started from.', default: 'HEAD' }),
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
    const problems = [];
    if (
      flags.status !== undefined &&
      !flags.from &&
      !(STATUSES as readonly string[]).includes(flags.status)
    ) {
      problems.push({
        path: 'status',
        message: 'unknown status',
        expected: STATUSES.join(' | '),
        got: flags.status,
      });
    }
    if (flags.format !== undefined && !(FORMATS as readonly string[]).includes(flags.format)) {
      problems.push({
        path: 'format',
        message: 'unknown format',
        expected: FORMATS.join(' | '),
        got: flags.format,
      });
    }
    const evidence = new Map<string, string>();
    for (const item of flags.evidence ?? []) {
      const eq = item.indexOf('=');
      if (eq <= 0) problems.push({ path: 'evidence', message: 'expected NAME=PATH', got: item });
      else evidence.set(item.slice(0, eq), item.slice(eq + 1));
    }
    // A file is read by recordHandoff (a regular file inside the repository's reach, capped);
    // standard input here, capped the same way.
    let from: RecordRequest['from'];
    if (flags.from === '-') {
      const bytes = await readStdin(MAX_HANDOFF_FILE_BYTES);
      if (bytes === undefined)
        problems.push({
          path: 'from',
          message: `standard input holds more than ${MAX_HANDOFF_FILE_BYTES} bytes; at most that many are read`,
        });
      else from = { bytes, fileName: '-' };
    } else if (flags.from !== undefined) {
      from = { path: flags.from };
    }
    if (problems.length > 0) {
      throw new LedgerError(
        'INVALID_INPUT',
        `cannot record: ${problems.length} problem(s) in the input`,
        {
          problems,
          hint: 'Nothing was written. See ledger record --help.',
        },
      );
    }
    const outcome = await recordHandoff({
      cwd: process.cwd(),
      ...(from ? { from } : {}),
      ...(flags.format ? { format: flags.format as FormatName } : {}),
      ...definedOnly({
        status: flags.status,
        summary: flags.summary,
        task: flags.task,
        run: flags.run,
        attempt: flags.attempt,
        intent: flags.intent,
        reworkOf: flags['rework-of'],
        producer: flags.producer,
      }),
      base: flags.base,
      artifacts: flags.artifact ?? [],
      includeUntracked: flags['include-untracked'] ?? [],
      ...(flags['tracked-only'] ? { trackedOnly: true } : {}),
      witnesses: flags.witness ?? [],
      evidence,
      witnessTimeoutMs: flags['witness-timeout'] * 1000,
      keepOutput: flags['keep-output'],
      ...(flags.isolate ? { isolate: true } : {}),
      ...(flags.sign === undefined ? {} : { sign: flags.sign }),
      ...(flags['signing-key'] === undefined
        ? {}
        : { signingKey: flags['signing-key'], sign: flags.sign ?? true }),
      onProgress: this.progress,
    });
    // stdout carries only the id (scripts capture it); what a person must know follows on stderr.
    const { observed, claims } = outcome.record;
    const notice: string[] = [];
    const lowered =
      observed.reasons.length > 0 ||
      ((STATUSES as readonly string[]).includes(claims.status) &&
        claims.status !== observed.effectiveStatus);
    if (lowered) {
      notice.push(
        `effective status: ${observed.effectiveStatus} (${claims.status === '' ? 'no status claimed' : `claimed ${sanitizeLine(claims.status)}`})`,
      );
      for (const r of observed.reasons) notice.push(`  ${r.code}: ${sanitizeLine(r.message)}`);
    }
    for (const file of observed.skipped ?? [])
      notice.push(`not stored: ${sanitizeLine(file.path)} (${file.reason})`);
    if (!outcome.added) notice.push('already recorded: the ledger holds this exact record');
    return {
      json: toRecordJson(outcome),
      text: outcome.id,
      ...(notice.length > 0 ? { notice: notice.join('\n') } : {}),
    };
  }
}

function definedOnly<T extends Record<string, string | undefined>>(
  values: T,
): { [K in keyof T]?: string } {
  const out: { [K in keyof T]?: string } = {};
  for (const [k, v] of Object.entries(values))
    if (v !== undefined) (out as Record<string, string>)[k] = v;
  return out;
}

/** Standard input up to `max` bytes; undefined when there is more (nothing more is read). */
async function readStdin(max: number): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > max) {
      process.stdin.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
