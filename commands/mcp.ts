import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { recorderSigningFlags } from '../src/cli/recorder-flags.js';
import { LedgerError } from '../src/model/errors.js';
import { MAX_TIMEOUT_SECONDS } from '../src/model/vocabulary.js';

export default class Mcp extends LedgerCommand {
  static override summary = 'Serve the ledger to agents over the Model Context Protocol (stdio).';
  static override description =
    'Runs an MCP server on stdin/stdout with four tools: record (a handoff, like ledger record), ' +
    'verify, show and log. Results carry the CLI JSON and exit code; failures are tool errors ' +
    '(isError) with the error code and exit code. The agent cannot name witness commands: the ' +
    'record tool runs only the --witness commands given here, isolated as verify --rerun runs ' +
    'them (the agent usually wrote them). Records are signed only with --sign, as their ' +
    'recorder; a producer the agent names stays a claim. Add it to Claude Code with: ' +
    'claude mcp add ledger -- ledger mcp';
  static override examples = [
    '<%= config.bin %> mcp',
    '<%= config.bin %> mcp --witness "npm test"',
    'claude mcp add ledger -- <%= config.bin %> mcp --witness "npm test"',
  ];
  // No --json: stdout is the MCP protocol, and a JSON document of ours after it (the `null` an
  // answerless command prints) is a line no client can read. The tools answer in the CLI JSON.
  static override baseFlags = {};
  static override flags = {
    witness: Flags.string({
      description: 'A command the record tool runs as a witness (repeatable).',
      multiple: true,
    }),
    'witness-timeout': Flags.integer({
      description: 'Seconds before a witness is killed.',
      default: 600,
      min: 1,
      max: MAX_TIMEOUT_SECONDS,
    }),
    ...recorderSigningFlags,
  };

  protected async execute(): Promise<Output> {
    // Asked before parsing, which would call it an unknown flag and suggest another.
    if (this.wantsJson)
      throw new LedgerError('USAGE', 'ledger mcp has no --json: its stdout is the MCP protocol', {
        problems: [{ path: '--json', message: 'not a flag of mcp', got: '--json' }],
        hint: 'Run ledger mcp without --json: each tool already answers with what the command prints under --json.',
      });
    const { flags } = await this.parse(Mcp);
    const witnesses = flags.witness ?? [];
    const empty = witnesses.flatMap((w, i) =>
      w.trim() === '' ? [{ path: `witness[${i}]`, message: 'empty witness command' }] : [],
    );
    if (empty.length > 0)
      throw new LedgerError('USAGE', 'cannot serve: empty witness command', { problems: empty });
    // Loaded here, not at the top: the SDK costs start-up time no other command should pay.
    const { startMcp } = await import('../src/mcp/start.js');
    await startMcp({
      cwd: process.cwd(),
      witnesses,
      witnessTimeoutSeconds: flags['witness-timeout'],
      ...(flags.sign
        ? {
            sign: flags['signing-key'] === undefined ? {} : { signingKey: flags['signing-key'] },
          }
        : {}),
    });
    return { json: null, text: '' };
  }
}
