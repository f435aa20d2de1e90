/**
 * What every command prints under `--json`, as zod schemas: the single description from which
 * the published JSON Schemas (`ledger schema NAME`, `dist/schemas/`) are generated and against
 * which the tests check every command's real output.
 *
 * Scripts already parse these shapes: fields may be added, never renamed or removed. A field
 * added to a command's output is added to its schema too (the tests fail until it is).
 *
 * One module per family of answers under `outputs/`; this index keeps the one import path the
 * registry (`index.ts`), the library's answer types (`app/views.ts`) and the tests use.
 */
export { ErrorOutput } from './outputs/shared.js';
export { CheckOutput, RecordOutput, VerifyOutput } from './outputs/record-verify.js';
export { LogOutput, ShowEmitted, ShowOutput, ShowRecord, StatsOutput } from './outputs/reading.js';
export { LifecycleOutput, SignOutput, SyncOutput } from './outputs/sync-sign.js';
export {
  HookClaudeCodeOutput,
  HookCodexOutput,
  HookCursorOutput,
  HookGeminiOutput,
  InitOutput,
  SchemaOutput,
  VersionOutput,
} from './outputs/setup.js';
export { ExportOutput, ReportOutput } from './outputs/export-report.js';
export {
  McpErrorOutput,
  McpLogOutput,
  McpRecordOutput,
  McpShowOutput,
  McpTruncated,
  McpVerifyOutput,
} from './outputs/mcp.js';
