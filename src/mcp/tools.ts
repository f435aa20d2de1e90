/**
 * The MCP tools: `record`, `verify`, `show` and `log`, each with a zod schema (published to
 * clients as JSON Schema) and the CLI's semantics — the library's functions underneath, the
 * `--json` shapes as structured content, and every failure as a tool result with
 * `isError: true` and `{ok: false, exitCode, error: {code, message, problems, hint}}`, the
 * CLI's exit code included. A verification that contradicts a claim is `isError` too, with
 * exit code 1, as `ledger verify` exits 1.
 *
 * The caller is the agent, so the tools take nothing that would widen what ledger trusts or
 * runs: no witness commands (the server's own `--witness` flags name them, as the user wrote
 * them into the MCP configuration), no evidence files (a path outside the repository would
 * carry its bytes into the ledger), no policy file and no attestations (the auditor's), no
 * signing key. Nothing it sends decides who signs: records are signed only when the server was
 * started with `--sign`, and then as the recorder, never as the producer. The witnesses run
 * isolated, as `verify --rerun` runs them: they are usually the agent's own code. This module
 * does not load the SDK: it is pure and testable in memory.
 */
import { z } from 'zod';
import { ANSWER_SCHEMAS, outputJsonSchema } from '../cli/json/index.js';
import { issuesToProblems } from '../formats/index.js';
import { internalError, isLedgerError, LedgerError, type ExitCode } from '../model/errors.js';
import { VERDICTS, type Verdict } from '../verify/types.js';
import type { CheckJson, Ledger, VerifyJsonWithTasks } from '../library.js';
import { ANSWER_LIMIT, fitAnswer } from './bound.js';
import { LogArgs, RecordArgs, ShowArgs, VerifyArgs } from './tool-args.js';
import { inToolWords, problemInToolWords } from './words.js';

export { LogArgs, RecordArgs, ShowArgs, VerifyArgs } from './tool-args.js';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

export interface ToolContext {
  ledger: Ledger;
  /** Witness commands from the server's own command line. */
  witnesses: readonly string[];
  witnessTimeoutSeconds?: number;
  /**
   * Set when the server was started with `--sign`: records get a recorder signature
   * ("recorded by <signer>'s ledger"). Never `ledger.sign`: that setting means "I
   * produced what I record", which the agent calling these tools did, not the user.
   */
  sign?: { signingKey?: string };
  /**
   * The call was cancelled (`notifications/cancelled`): a record ends its witness and writes
   * nothing, unless its append had begun (then the whole record is written); a verify ends its
   * re-run witnesses, removes their checkouts and writes nothing. `show` and `log` only read,
   * a bounded amount, and are left to finish.
   */
  signal?: AbortSignal;
  /** Who is calling, from the MCP handshake: the default producer. */
  client?: { name: string; version: string };
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  schema: z.ZodType;
  readOnly: boolean;
  /** How to ask for what an answer cut to fit left out (the answer, to name its id). */
  more(answer: Record<string, unknown>): string;
  /** Paths cut before anything else, and after everything else (bound.ts). */
  cut?: { first: readonly string[]; last: readonly string[] };
  run(
    args: never,
    context: ToolContext,
  ): Promise<{ json: Record<string, unknown>; exitCode: ExitCode }>;
}

const TOOLS: Tool[] = [
  {
    name: 'record',
    title: 'Record a handoff',
    description:
      'Seal a handoff into the ledger (like `ledger record`): ledger observes the base commit, a snapshot of the work tree, artifact digests and the witnesses configured for this server, and derives the effective status. Returns the record id and the claimed and effective status. Refused inputs write nothing (exit code 2, every problem listed).',
    schema: RecordArgs,
    readOnly: false,
    more: () => 'Call show with the record id for the whole record.',
    async run(args: z.infer<typeof RecordArgs>, context) {
      const producer =
        args.producer ??
        (context.client ? `${context.client.name} ${context.client.version} via MCP` : undefined);
      // The producer, from the arguments or the handshake, is the agent's word: a claim that no
      // signature made here ever vouches for (a recorder signature names who ran ledger).
      const json = await context.ledger.record(
        {
          ...args,
          ...(producer === undefined ? {} : { producer }),
          witnesses: context.witnesses,
          // The agent wrote the repository's .git as surely as its handoff: a git dir that sends
          // the writes to another repository is not written unattended (store/git/gitfile.ts),
          // checked on the repository the record then writes through.
          ownGitDirOnly: true,
          isolate: true,
          sign: context.sign !== undefined,
          // As the recorder, with the user's key: user.signingKey from the user's own config
          // only, never the repository's, which the agent writes (app/policy/trust.ts).
          ...(context.sign === undefined
            ? {}
            : { signAs: 'recorder' as const, signingKeyScopes: 'user' as const }),
          ...(context.sign?.signingKey === undefined
            ? {}
            : { signingKey: context.sign.signingKey }),
          ...(context.witnessTimeoutSeconds === undefined
            ? {}
            : { witnessTimeoutSeconds: context.witnessTimeoutSeconds }),
        },
        context.signal === undefined ? {} : { signal: context.signal },
      );
      return { json: { ...json }, exitCode: 0 };
    },
  },
  {
    name: 'verify',
    title: 'Verify records',
    description:
      'Recompute what the records assert (like `ledger verify`) and give every claim a verdict: verified, contradicted, unverifiable, stale. By default the answer is compact: per record its id, task and verdict, only the checks that did not verify, and counts; detail "full" gives every check. exitCode 0 all checks passed, 1 a claim was contradicted (or, with strict, unverifiable), 3 the ledger data is damaged. Re-runs follow the user\'s policy only.',
    schema: VerifyArgs,
    readOnly: true,
    more: () => 'Pass ids to verify a few records at a time (their ids are in log).',
    async run(args: z.infer<typeof VerifyArgs>, context) {
      const { detail, ...input } = args;
      // Cancelled: its re-run witnesses are ended and nothing is written (app/verify.ts).
      const options = context.signal === undefined ? {} : { signal: context.signal };
      if (detail === 'full') {
        const json = await context.ledger.verify(input, options);
        return { json: { ...json, detail: 'full' }, exitCode: json.exitCode };
      }
      // The tasks come with the report, from the records verify read: a second read of the
      // whole ledger answered for records outside the ones asked for, from another snapshot
      // (red team, round nine: one damaged record elsewhere turned a pass into exit 3).
      const json = await context.ledger.verify({ ...input, tasks: true }, options);
      return { json: verifySummary(json), exitCode: json.exitCode };
    },
  },
  {
    name: 'show',
    title: 'Show a record',
    description:
      'One record (like `ledger show --json`): the claims the agent authored, what ledger observed (observedProof: whether that is proven here — recorded-here, trusted-signature, or unproven until ledger verify --rerun), the claimed and effective status and the reasons, signatures. With `as`, the record in a seed format’s own shape.',
    schema: ShowArgs,
    readOnly: true,
    more: (answer) =>
      `Run \`ledger show ${typeof answer['id'] === 'string' ? answer['id'] : 'ID'} --json\` outside MCP for the whole record.`,
    // What the agent wrote goes first; ledger's reasons for the status and the lifecycle last.
    cut: { first: ['claims'], last: ['reasons', 'observed.reasons', 'lifecycle'] },
    async run(args: z.infer<typeof ShowArgs>, context) {
      const ref = args.latest !== undefined ? { latest: args.latest } : args.id!;
      const json =
        args.as === undefined
          ? await context.ledger.show(ref)
          : await context.ledger.showAs(ref, args.as);
      return { json: { ...json }, exitCode: 0 };
    },
  },
  {
    name: 'log',
    title: 'List records',
    description:
      'The records in the ledger, newest first (like `ledger log --json`), 50 unless `limit` says otherwise.',
    schema: LogArgs,
    readOnly: true,
    more: () => 'Pass task, or a smaller limit.',
    // What ledger found beside the listing (a rollback, a look that stopped) is cut last.
    cut: { first: [], last: ['notices'] },
    async run(args: z.infer<typeof LogArgs>, context) {
      // With the notices `ledger log` prints on stderr: an agent asking through MCP learns what
      // a person at the terminal learns (red team, round twelve).
      const { records, notices, unchecked, rollback } = await context.ledger.logWithNotices({
        ...args,
        limit: args.limit ?? 50,
      });
      return {
        json: {
          records,
          notices: notices.map(inToolWords),
          unchecked,
          ...(rollback === undefined ? {} : { rollback }),
        },
        exitCode: 0,
      };
    },
  },
];

/**
 * The compact verify answer: what a model acts on (which records failed, and the checks that
 * did), not the hundreds of checks that passed.
 */
export function verifySummary(json: VerifyJsonWithTasks): Record<string, unknown> {
  const zero = (): Record<Verdict, number> =>
    Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  const byVerdict = zero();
  const checks = zero();
  const failing = (list: readonly CheckJson[]) =>
    list
      .filter((c) => c.verdict !== 'verified')
      .map((c) => ({
        id: c.id,
        check: c.check,
        subject: c.subject,
        verdict: c.verdict,
        detail: inToolWords(c.detail),
      }));
  for (const c of json.ledger) checks[c.verdict] += 1;
  const records = json.records.map((r) => {
    byVerdict[r.verdict] += 1;
    for (const c of r.checks) checks[c.verdict] += 1;
    const { task } = r;
    const notVerified = failing(r.checks);
    return {
      id: r.id,
      ...(task === undefined ? {} : { task }),
      verdict: r.verdict,
      ...(notVerified.length === 0 ? {} : { checks: notVerified }),
    };
  });
  return {
    ok: json.ok,
    exitCode: json.exitCode,
    detail: 'summary',
    counts: { records: json.records.length, byVerdict, checks },
    ledger: failing(json.ledger),
    records,
    notes: json.notes.map(inToolWords),
  };
}

/** The tool list as MCP's `tools/list` returns it. */
export function listTools(): {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema: { type: 'object'; [key: string]: unknown };
  annotations: Record<string, boolean | string>;
}[] {
  return TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.schema),
    outputSchema: toolOutputSchema(tool.name),
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: false,
      idempotentHint: tool.readOnly,
      openWorldHint: false,
    },
  }));
}

/**
 * A tool's outputSchema: exactly what `ledger schema mcp NAME` prints, without `$schema` — the
 * SDK's client validates with a draft-07 validator that refuses a 2020-12 meta-schema URI it
 * does not know, and the schema uses nothing 2020-12 adds.
 */
export function toolOutputSchema(tool: string): { type: 'object'; [key: string]: unknown } {
  const name = `mcp:${tool}`;
  if (!(name in ANSWER_SCHEMAS)) throw new RangeError(`no answer schema for tool ${tool}`);
  const { $schema: _ignored, ...schema } = outputJsonSchema(name);
  return { ...schema, type: 'object' };
}

/** Runs a tool; never throws for a ledger failure or bad arguments (those are tool errors). */
export async function callTool(
  name: string,
  args: unknown,
  context: ToolContext,
): Promise<ToolResult | undefined> {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) return undefined;
  try {
    const parsed = tool.schema.safeParse(args ?? {});
    if (!parsed.success) {
      const problems = issuesToProblems(parsed.error.issues, args ?? {});
      throw new LedgerError('USAGE', `invalid arguments for ${name}`, {
        problems,
        hint: 'See the tool’s input schema (tools/list).',
      });
    }
    const { json, exitCode } = await tool.run(parsed.data as never, context);
    const ok = exitCode === 0;
    return result(tool, { ok, exitCode, ...json }, !ok);
  } catch (error) {
    return failed(tool, failureOf(error));
  }
}

/**
 * A call that was not run (the call queue was full): the answer a failure of its tool gives,
 * `isError` with the error's code and exit code. Undefined for a tool that does not exist.
 */
export function refusedCall(name: string, refusal: LedgerError): ToolResult | undefined {
  const tool = TOOLS.find((t) => t.name === name);
  return tool && failed(tool, refusal);
}

function failed(tool: Tool, failure: LedgerError): ToolResult {
  return result(
    { ...tool, more: () => 'Fix the problems listed first; the rest follow.' },
    { ok: false, exitCode: failure.exitCode, error: errorJson(failure) },
    true,
  );
}

/**
 * A ledger failure as it is; anything else is a bug in ledger, reported as one (INTERNAL, exit
 * 4) by its first line only: a stack would spend the model's context on ledger's file layout.
 */
function failureOf(error: unknown): LedgerError {
  if (isLedgerError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return internalError(`${message.split('\n')[0]!.slice(0, 500)} (in an MCP tool call)`);
}

function errorJson(failure: LedgerError): Record<string, unknown> {
  const json = failure.toJSON();
  return {
    ...json,
    message: inToolWords(failure.message),
    ...(failure.problems.length === 0
      ? {}
      : { problems: failure.problems.map(problemInToolWords) }),
    ...(failure.hint === undefined ? {} : { hint: inToolWords(failure.hint) }),
  };
}

/** Each tool's outputSchema, worked out once: the cutter reads it on every answer. */
const outputSchemas = new Map<string, ReturnType<typeof toolOutputSchema>>();

function result(tool: Tool, structured: Record<string, unknown>, isError: boolean): ToolResult {
  let schema = outputSchemas.get(tool.name);
  if (schema === undefined) outputSchemas.set(tool.name, (schema = toolOutputSchema(tool.name)));
  // Within ANSWER_LIMIT whatever the record held, still matching the schema, its note included.
  const { value: answer } = fitAnswer(structured, {
    limit: ANSWER_LIMIT,
    schema,
    ...(tool.cut === undefined ? {} : tool.cut),
    more: tool.more(structured),
  });
  return {
    // The same JSON, unindented: a client that shows the model only the text costs no more.
    content: [{ type: 'text', text: JSON.stringify(answer) }],
    structuredContent: answer,
    isError,
  };
}

function jsonSchemaOf(schema: z.ZodType): { type: 'object'; [key: string]: unknown } {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return { ...rest, type: 'object' };
}
