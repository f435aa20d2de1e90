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
import { EMITTER_NAMES, issuesToProblems } from '../formats/index.js';
import { isLedgerError, LedgerError, type ExitCode } from '../model/errors.js';
import { FORMATS } from '../model/record.js';
import type { Ledger } from '../library.js';

const text = z.string().max(64 * 1024);
const name = z.string().min(1).max(4096);

export const RecordArgs = z.strictObject({
  handoff: z
    .string()
    .max(16 * 1024 * 1024)
    .optional()
    .describe(
      "The handoff's text (Markdown or JSON in any of the seed formats); omit it to record from the other fields alone.",
    ),
  fileName: name
    .optional()
    .describe('The handoff file name, for formats that read meaning from it (INS-….json).'),
  format: z.enum(FORMATS).optional().describe('The handoff format (default: detected).'),
  status: text.optional().describe('Claimed status (required without a handoff).'),
  summary: text.optional(),
  task: text.optional(),
  run: text.optional(),
  attempt: text.optional(),
  intent: text.optional(),
  reworkOf: text.optional().describe('Id of the handoff this run reworks.'),
  producer: text.optional().describe('Who produced the handoff; a claim until signed.'),
  base: text.optional().describe('The commit the agent started from (default HEAD).'),
  artifacts: z
    .array(name)
    .max(100_000)
    .optional()
    .describe('Files the run produced, relative to the repository; digested and stored.'),
});

export const VerifyArgs = z.strictObject({
  ids: z
    .array(text)
    .max(10_000)
    .optional()
    .describe('Record ids or unique prefixes (default: all).'),
  strict: z.boolean().optional().describe('Also fail when a claim is unverifiable.'),
  rerun: z
    .boolean()
    .optional()
    .describe("Re-run the witnesses the user's policy allows, in a throw-away checkout."),
  worktree: z
    .boolean()
    .optional()
    .describe('Also compare recorded artifacts with the work tree now (stale when changed).'),
});

export const ShowArgs = z
  .strictObject({
    id: text.optional().describe('A record id or unique prefix.'),
    latest: text.optional().describe('Instead of an id: the newest record of this task.'),
    as: z.enum(EMITTER_NAMES).optional().describe("Render the record in a seed system's shape."),
  })
  .refine((v) => (v.id === undefined) !== (v.latest === undefined), {
    message: 'give exactly one of id or latest',
    path: ['id'],
  });

export const LogArgs = z.strictObject({
  task: text.optional().describe('Only records of this task.'),
  limit: z.int().min(1).max(1_000_000).optional().describe('At most this many records.'),
});

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
   * ("recorded on this machine by <signer>"). Never `ledger.sign`: that setting means "I
   * produced what I record", which the agent calling these tools did, not the user.
   */
  sign?: { signingKey?: string };
  /** Who is calling, from the MCP handshake: the default producer. */
  client?: { name: string; version: string };
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  schema: z.ZodType;
  readOnly: boolean;
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
    async run(args: z.infer<typeof RecordArgs>, context) {
      const producer =
        args.producer ??
        (context.client ? `${context.client.name} ${context.client.version} via MCP` : undefined);
      // The producer, from the arguments or the handshake, is the agent's word: a claim that no
      // signature made here ever vouches for (a recorder signature names who ran ledger).
      const json = await context.ledger.record({
        ...args,
        ...(producer === undefined ? {} : { producer }),
        witnesses: context.witnesses,
        isolate: true,
        sign: context.sign !== undefined,
        ...(context.sign === undefined ? {} : { signAs: 'recorder' as const }),
        ...(context.sign?.signingKey === undefined ? {} : { signingKey: context.sign.signingKey }),
        ...(context.witnessTimeoutSeconds === undefined
          ? {}
          : { witnessTimeoutSeconds: context.witnessTimeoutSeconds }),
      });
      return { json: { ...json }, exitCode: 0 };
    },
  },
  {
    name: 'verify',
    title: 'Verify records',
    description:
      "Recompute what the records assert (like `ledger verify`) and give every claim a verdict: verified, contradicted, unverifiable, stale. exitCode 0 all checks passed, 1 a claim was contradicted (or, with strict, unverifiable), 3 the ledger data is damaged. Re-runs follow the user's policy only.",
    schema: VerifyArgs,
    readOnly: true,
    async run(args: z.infer<typeof VerifyArgs>, context) {
      const json = await context.ledger.verify(args);
      return { json: { ...json }, exitCode: json.exitCode };
    },
  },
  {
    name: 'show',
    title: 'Show a record',
    description:
      'One record (like `ledger show --json`): the claims the agent authored, what ledger observed, the claimed and effective status and the reasons, signatures. With `as`, the record in a seed format’s own shape.',
    schema: ShowArgs,
    readOnly: true,
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
    description: 'The records in the ledger, newest first (like `ledger log --json`).',
    schema: LogArgs,
    readOnly: true,
    async run(args: z.infer<typeof LogArgs>, context) {
      return { json: { records: await context.ledger.log(args) }, exitCode: 0 };
    },
  },
];

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
    outputSchema: OUTPUT_SCHEMA,
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
 * Every result, success or failure, has `ok` and the CLI's `exitCode`; the rest is the
 * command's `--json` (or `error`). Loose, so a client validating it accepts both shapes.
 */
const OUTPUT_SCHEMA = jsonSchemaOf(
  z.looseObject({
    ok: z.boolean(),
    exitCode: z.int().min(0).max(4),
  }),
);

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
    return result({ ...json, ok, exitCode }, !ok);
  } catch (error) {
    const failure = isLedgerError(error)
      ? error
      : new LedgerError('USAGE', `unexpected failure: ${(error as Error)?.message ?? error}`, {
          hint: 'This is a bug in ledger; please report it with the tool call.',
          cause: error,
        });
    return result({ ok: false, exitCode: failure.exitCode, error: failure.toJSON() }, true);
  }
}

function result(structured: Record<string, unknown>, isError: boolean): ToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }],
    structuredContent: structured,
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
