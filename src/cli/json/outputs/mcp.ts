/**
 * The MCP tools' answers (`ledger mcp`): each tool's structured content, published as
 * `ledger schema mcp NAME` and sent as the tool's outputSchema, so the two cannot differ.
 */
import { z } from 'zod';
import { VERDICTS } from '../../../verify/types.js';
import { LogOutput, ShowEmitted, ShowRecord } from './reading.js';
import { CheckOutput, RecordOutput, VerifyOutput } from './record-verify.js';
import { ErrorOutput, HeldEntriesMissing, okTrue, recordId } from './shared.js';

/** Set when an answer was cut to fit the size a model's context can take. */
export const McpTruncated = z
  .object({
    limit: z.number().int().positive().describe('the most characters an answer may hold'),
    cuts: z
      .array(
        z.object({
          path: z
            .string()
            .describe('what was cut, as a path into this answer (records, claims.summary)'),
          kept: z.number().int().nonnegative(),
          of: z.number().int().nonnegative(),
          unit: z.enum(['items', 'characters']),
        }),
      )
      .describe('every list or text that was shortened: how much was kept of how much'),
    hint: z.string().describe('how to ask for what was left out'),
  })
  .describe('present only when the answer was cut to fit: what was cut and how to get the rest');

const mcpAnswer = {
  ok: okTrue,
  exitCode: z.literal(0),
  truncated: McpTruncated.optional(),
};

export const McpRecordOutput = RecordOutput.extend(mcpAnswer).describe(
  'ledger mcp, tool record: ledger record --json, with the exit code',
);

const SummaryCheck = CheckOutput.omit({ rerun: true });
const verdictCounts = z.object({
  verified: z.number().int().nonnegative(),
  contradicted: z.number().int().nonnegative(),
  unverifiable: z.number().int().nonnegative(),
  stale: z.number().int().nonnegative(),
});

const McpVerifySummary = z.object({
  ok: z.boolean(),
  exitCode: VerifyOutput.shape.exitCode,
  detail: z.literal('summary').describe('the compact answer; detail "full" gives every check'),
  counts: z
    .object({
      records: z.number().int().nonnegative().describe('records verified in this call'),
      byVerdict: verdictCounts.describe('records by their overall verdict'),
      checks: verdictCounts.describe('checks of those records (and of the ledger) by verdict'),
    })
    .describe('how many of what'),
  ledger: z
    .array(SummaryCheck)
    .describe('checks of the ledger as a whole that did not verify (empty: all did)'),
  records: z.array(
    z.object({
      id: recordId,
      task: z.string().optional(),
      verdict: z.enum(VERDICTS),
      checks: z
        .array(SummaryCheck)
        .optional()
        .describe('only the checks that did not verify (absent: every check verified)'),
    }),
  ),
  notes: z.array(z.string()).describe('what this run could not check, and why'),
  truncated: McpTruncated.optional(),
});

const McpVerifyFull = VerifyOutput.extend({
  detail: z.literal('full').describe('every check of every record, as ledger verify --json'),
  truncated: McpTruncated.optional(),
});

export const McpVerifyOutput = z
  .union([McpVerifySummary, McpVerifyFull])
  .describe(
    'ledger mcp, tool verify: by default per record its id, task, verdict and only the checks that did not verify; with detail "full", ledger verify --json',
  );

export const McpShowOutput = z
  .union([ShowRecord.extend(mcpAnswer), ShowEmitted.extend(mcpAnswer)])
  .describe('ledger mcp, tool show: ledger show --json (with as: the re-emitted text)');

export const McpLogOutput = z
  .object({
    ...mcpAnswer,
    records: LogOutput,
    notices: z
      .array(z.string())
      .describe(
        'what ledger log says beside the listing, most serious first: log entries this clone held that are missing (a rollback), a look past limit that stopped with entries left, a fetched remote ledger with records this one lacks (empty: nothing)',
      ),
    unchecked: z
      .boolean()
      .describe(
        "true: the look past limit for records of the listed tasks concurrent with them stopped with entries left, so one may be below the listing (log with task lists all of a task's records)",
      ),
    rollback: HeldEntriesMissing.optional(),
  })
  .describe(
    'ledger mcp, tool log: ledger log --json as records, newest first, with what ledger log says beside them',
  );

export const McpErrorOutput = ErrorOutput.extend({ truncated: McpTruncated.optional() }).describe(
  'ledger mcp, any tool, on failure: the error shape, with the exit code the CLI would exit with',
);
