/**
 * What each MCP tool takes, as zod schemas sent to clients as JSON Schema: only what cannot widen
 * what ledger trusts or runs (tools.ts says what is left out, and why).
 */
import { z } from 'zod';
import { EMITTER_NAMES, formatModules } from '../formats/index.js';
import { HANDOFF_FIELD_DESCRIPTIONS, STATUS_MEANINGS } from '../formats/ledger/schema.js';
import { FORMATS, STATUSES } from '../model/record.js';

/*
 * Every call these schemas accept fits the transport's limit (message-limit.ts), however the
 * client escapes it: one character can take six bytes (`\u0001`), so the record tool's
 * largest call — a 1 MiB handoff (6 MiB), eight texts of 16 KiB (768 KiB), 500 artifact names of
 * 1,024 characters (2.9 MiB) — is about 9.7 MiB of JSON, leaving room for the request around it
 * and the 64 KiB read that may carry the next one (test/mcp/red-team-nine.test.ts adds it up
 * from the published schemas). A message over the limit is never a tool error: the transport
 * closes the session, so the schemas, which a client reads, must never invite one.
 */
const HANDOFF_MAX_CHARS = 1024 * 1024;
const text = z.string().max(16 * 1024);
const name = z.string().min(1).max(1024);
/** A record id or a unique prefix of one: never a path, never a revision. */
const recordRef = z
  .string()
  .max(71)
  .regex(/^(sha256:)?[0-9a-f]{1,64}$/, 'a record id (sha256:<hex>) or a unique prefix of its hex');
const claim = (field: string) => text.optional().describe(HANDOFF_FIELD_DESCRIPTIONS[field]!);
const lines = (pairs: [string, string][]) => pairs.map(([k, v]) => `${k}: ${v}`).join('; ');

export const RecordArgs = z.strictObject({
  handoff: z
    .string()
    .max(HANDOFF_MAX_CHARS)
    .optional()
    .describe(
      "Your handoff's text: Markdown or JSON in any of the formats below, or the ledger's own JSON (its schema: `ledger schema handoff`). Omit it to record from status and the other fields alone. At most 1 MiB here; a larger one is recorded with `ledger record --from FILE`.",
    ),
  fileName: name
    .optional()
    .describe('The handoff file name, for formats that read meaning from it (INS-….json).'),
  format: z
    .enum(FORMATS)
    .optional()
    .describe(
      `The handoff's format (default: detected from the text). ${lines(formatModules().map((m) => [m.name, m.title]))}.`,
    ),
  status: z
    .enum(STATUSES)
    .optional()
    .describe(
      `Your status, required without a handoff (${lines(STATUSES.map((s) => [s, STATUS_MEANINGS[s]]))}). With a handoff, leave it out: the handoff's status is the claim.`,
    ),
  summary: claim('summary'),
  task: claim('task'),
  run: claim('run'),
  attempt: claim('attempt'),
  intent: claim('intent'),
  reworkOf: claim('reworkOf'),
  producer: text
    .optional()
    .describe(
      'Who produced the handoff (default: your client name from the handshake); a claim until signed.',
    ),
  base: text
    .optional()
    .describe(
      'The commit you started from (default HEAD): a ref or commit id; a short name must name exactly one ref.',
    ),
  artifacts: z
    .array(name)
    .max(500)
    .optional()
    .describe('Files you produced, relative to the repository; ledger digests and stores them.'),
});

export const VerifyArgs = z.strictObject({
  ids: z
    .array(recordRef)
    .max(1_000)
    .optional()
    .describe('Record ids or unique prefixes of them (default: every record).'),
  strict: z.boolean().optional().describe('Also fail (exitCode 1) when a claim is unverifiable.'),
  rerun: z
    .boolean()
    .optional()
    .describe("Re-run the witnesses the user's policy allows, in a throw-away checkout."),
  worktree: z
    .boolean()
    .optional()
    .describe('Also compare recorded artifacts with the work tree now (stale when changed).'),
  detail: z
    .enum(['summary', 'full'])
    .optional()
    .describe(
      `How much to answer (default summary). ${lines([
        [
          'summary',
          'per record its id, task and verdict, only the checks that did not verify, and counts',
        ],
        [
          'full',
          'every check of every record, as `ledger verify --json`; ask for a few ids at a time',
        ],
      ])}.`,
    ),
});

export const ShowArgs = z
  .strictObject({
    id: recordRef.optional().describe('A record id or a unique prefix of it.'),
    latest: text.optional().describe('Instead of an id: the newest record of this task.'),
    as: z
      .enum(EMITTER_NAMES)
      .optional()
      .describe(
        `Render the record in a seed system's shape. ${lines(
          formatModules().flatMap((m) =>
            m.emitters.map((e): [string, string] => [e.name, e.title]),
          ),
        )}.`,
      ),
  })
  .refine((v) => (v.id === undefined) !== (v.latest === undefined), {
    message: 'give exactly one of id or latest',
    path: ['id'],
  });

export const LogArgs = z.strictObject({
  task: text.optional().describe('Only records of this task.'),
  limit: z
    .int()
    .min(1)
    .max(1_000)
    .optional()
    .describe('At most this many records, newest first (default 50).'),
});
