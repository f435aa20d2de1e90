/**
 * The JSON Schema of every command's `--json` output: one line per command below. A new
 * command adds its line (the CLI tests fail for a command without one); `npm run build` writes
 * each as `dist/schemas/<name>.schema.json`, which `ledger schema NAME` prints and the package
 * publishes.
 *
 * Only the build, the tests and the MCP server (whose tools send these as their outputSchema,
 * and which loads zod anyway) import this module: a command prints its JSON without loading
 * zod, and `ledger schema` reads the generated files.
 */
import { z } from 'zod';
import { handoffJsonSchema } from '../../formats/ledger/schema.js';
import {
  ErrorOutput,
  ExportOutput,
  HookClaudeCodeOutput,
  HookCodexOutput,
  HookGeminiOutput,
  HookCursorOutput,
  InitOutput,
  LifecycleOutput,
  LogOutput,
  McpErrorOutput,
  McpLogOutput,
  McpRecordOutput,
  McpShowOutput,
  McpVerifyOutput,
  RecordOutput,
  ReportOutput,
  SchemaOutput,
  ShowOutput,
  SignOutput,
  StatsOutput,
  SyncOutput,
  VerifyOutput,
  VersionOutput,
} from './outputs.js';

/** Command id → the schema of what it prints on success under `--json`. */
export const OUTPUT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  accept: LifecycleOutput,
  export: ExportOutput,
  'hook:claude-code': HookClaudeCodeOutput,
  'hook:codex': HookCodexOutput,
  'hook:gemini': HookGeminiOutput,
  'hook:cursor': HookCursorOutput,
  init: InitOutput,
  log: LogOutput,
  record: RecordOutput,
  reject: LifecycleOutput,
  report: ReportOutput,
  schema: SchemaOutput,
  show: ShowOutput,
  sign: SignOutput,
  stats: StatsOutput,
  supersede: LifecycleOutput,
  sync: SyncOutput,
  verify: VerifyOutput,
  version: VersionOutput,
};

/**
 * Answers that are not a command's `--json`: the MCP tools' structured content (`ledger schema
 * mcp verify`). The server sends exactly these as each tool's outputSchema.
 */
export const ANSWER_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  'mcp:log': McpLogOutput,
  'mcp:record': McpRecordOutput,
  'mcp:show': McpShowOutput,
  'mcp:verify': McpVerifyOutput,
};

/**
 * Commands without JSON output: oclif's plugins (help, shell completion), and `mcp`, whose
 * stdout is the MCP protocol itself.
 */
export const WITHOUT_JSON = ['help', 'autocomplete', 'mcp'] as const;

/** `hook:claude-code` → `hook-claude-code`: the name of its file in dist/schemas/. */
export function schemaFileName(name: string): string {
  return `${name.replace(/:/g, '-')}.schema.json`;
}

export { ErrorOutput };

export interface JsonSchemaOptions {
  /**
   * Closed: every object forbids properties it does not describe. The tests check outputs
   * against the closed form so that a field added without a schema line is caught; the
   * published form stays open, so a script validating with an older schema keeps working
   * when fields are added.
   */
  closed?: boolean;
}

/**
 * A command's published JSON Schema (draft 2020-12): its success output, or the error shape
 * every command prints when it fails under `--json`.
 */
export function outputJsonSchema(
  name: string,
  options: JsonSchemaOptions = {},
): Record<string, unknown> {
  if (name === 'handoff') return handoffJsonSchema();
  const output = name === 'error' ? ErrorOutput : (OUTPUT_SCHEMAS[name] ?? ANSWER_SCHEMAS[name]);
  if (output === undefined) throw new RangeError(`no output schema for ${name}`);
  const schema =
    name === 'error'
      ? output
      : z.union([output, name in ANSWER_SCHEMAS ? McpErrorOutput : ErrorOutput]);
  // io 'input': an object schema is open unless it is strict (the record model's are: a stored
  // record has exactly its schema's fields), which is the published form.
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (options.closed && jsonSchema.type === 'object' && jsonSchema.properties !== undefined)
        jsonSchema.additionalProperties = false;
    },
  }) as Record<string, unknown>;
  if (name in ANSWER_SCHEMAS) {
    // MCP requires an object schema at the top; every branch of the union is one.
    return {
      ...json,
      type: 'object',
      title: `ledger ${name.replace(/:/g, ' ')} (tool answer)`,
      description: `${output.description ?? ''}; on failure, the error shape (ledger schema error).`,
    };
  }
  return {
    ...json,
    title: `ledger ${name === 'error' ? '(any command, on failure)' : name} --json`,
    description:
      name === 'error'
        ? (ErrorOutput.description ?? '')
        : `${output.description ?? ''}; on failure, the error shape (ledger schema error).`,
  };
}

/** One line saying what a schema describes, for `ledger schema`'s list. */
export function outputDescription(name: string): string {
  if (name === 'handoff') return HANDOFF_DESCRIPTION;
  const output = name === 'error' ? ErrorOutput : (OUTPUT_SCHEMAS[name] ?? ANSWER_SCHEMAS[name]);
  return output?.description ?? '';
}

const HANDOFF_DESCRIPTION =
  'the handoff an agent writes in the ledger’s own format (input, not output), every field described';

/**
 * Names `ledger schema` knows: every command with JSON output, `error`, the MCP answers, and
 * `handoff` (the one input: what an agent writes).
 */
export function schemaNames(): string[] {
  return [
    ...Object.keys(OUTPUT_SCHEMAS),
    ...Object.keys(ANSWER_SCHEMAS),
    'error',
    'handoff',
  ].sort();
}
