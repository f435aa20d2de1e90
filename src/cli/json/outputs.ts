/**
 * What every command prints under `--json`, as zod schemas: the single description from which
 * the published JSON Schemas (`ledger schema NAME`, `dist/schemas/`) are generated and against
 * which the tests check every command's real output.
 *
 * Scripts already parse these shapes: fields may be added, never renamed or removed. A field
 * added to a command's output is added here too (the tests fail until it is).
 */
import { z } from 'zod';
import {
  formatStatsSchemas,
  formatViewSchemas,
  type FormatViewSchemas,
} from '../../formats/index.js';
import { ERROR_CODES, LedgerError } from '../../model/errors.js';
import { Claims, ObservedV3, Reason } from '../../model/record.js';
import { FORMATS, LIFECYCLE_FORMAT, STATUSES } from '../../model/vocabulary.js';

/** A stored record's format: a handoff format, or the lifecycle kind for a step (schema v4). */
const recordFormat = z
  .enum([...FORMATS, LIFECYCLE_FORMAT])
  .describe('the handoff format, or lifecycle for a lifecycle step');
import { VERDICTS } from '../../verify/types.js';

const recordId = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/)
  .describe('a record id, sha256:<hex>');
const gitOid = z
  .string()
  .regex(/^[0-9a-f]{40}$/)
  .describe('a git object id');
const okTrue = z.literal(true);

/** `{ok: false, …}`: what every command prints under `--json` when it fails (exit 2, 3 or 4). */
export const ErrorOutput = z
  .object({
    ok: z.literal(false),
    exitCode: z.number().int().min(1).max(4).describe('the process exit code'),
    error: z.object({
      code: z.enum(ERROR_CODES).describe('stable error code; tests and scripts match on it'),
      message: z.string(),
      record: z.string().optional().describe('the record an integrity failure is about'),
      problems: z
        .array(
          z.object({
            path: z.string().describe('where in the input: a field path, a flag, `command`'),
            message: z.string(),
            expected: z.string().optional(),
            got: z.string().optional(),
          }),
        )
        .optional(),
      hint: z.string().optional().describe('what to do about it'),
    }),
  })
  .describe('A failure: exit code 2 (usage or input), 3 (integrity) or 4 (a bug in ledger).');

export const RecordOutput = z
  .object({
    ok: okTrue,
    id: recordId,
    added: z.boolean().describe('false when the ledger already held these exact bytes'),
    commit: gitOid.describe('the ledger commit that holds the record'),
    format: z.enum(FORMATS),
    claimedStatus: z.string().describe('the status exactly as the agent wrote it'),
    effectiveStatus: z.enum(STATUSES).describe('derived by ledger from what it observed'),
    reasons: z.array(Reason).describe('why the effective status is lower than the claim'),
    candidateTree: gitOid,
    baseCommit: gitOid.nullable().describe('null before the repository has a first commit'),
    witnesses: z.array(
      z.object({
        command: z.string(),
        exitCode: z.number().int().nullable(),
        timedOut: z.boolean(),
      }),
    ),
    skipped: z
      .array(z.object({ path: z.string(), size: z.number().int().min(0), reason: z.string() }))
      .optional()
      .describe(
        'untracked files left out of the candidate tree (over the untracked budget), and why',
      ),
    detected: z
      .object({
        format: z.enum(FORMATS),
        confidence: z.number().min(0).max(1),
        signals: z.array(z.string()).describe('what in the input decided it'),
      })
      .optional()
      .describe('when the format was detected (no --format): which, how sure, and why'),
  })
  .describe('ledger record --json');

/** A handoff's lifecycle: pending until a step accepts, rejects or supersedes it. */
const LifecycleState = z.object({
  state: z.string().describe('pending, accepted, rejected or superseded'),
  step: recordId.optional().describe('the step that set the state'),
  by: z.string().optional().describe('who the step says took it (a claim unless signed)'),
  at: z.string().optional().describe('when the step was recorded'),
  with: recordId.optional().describe('supersede --with: the superseding record'),
});

export const LogOutput = z
  .array(
    z.object({
      id: recordId,
      entry: recordId.describe('the log entry that places the record'),
      height: z.number().int().positive(),
      task: z.string().optional(),
      run: z.string().optional(),
      format: recordFormat,
      claimedStatus: z.string(),
      effectiveStatus: z.enum(STATUSES),
      recordedAt: z.string(),
      summary: z.string().optional(),
      step: z
        .object({
          action: z.string().describe('accept, reject or supersede'),
          to: z.string().describe('the state it moved the record to'),
          of: recordId.describe('the record (or previous step) it acts on'),
          by: z.string().optional().describe('who it says took it (a claim unless signed)'),
          with: recordId.optional().describe('supersede --with: the superseding record'),
        })
        .optional()
        .describe('set on a lifecycle step: not a handoff, and not an agent run'),
      lifecycle: LifecycleState.optional().describe('set on a handoff: its lifecycle state'),
    }),
  )
  .describe('ledger log --json: records, newest first (empty when none matches)');

const Signature = z.object({
  armored: z.string(),
  signer: z.string().nullable(),
  verified: z.boolean(),
  key: z.string().optional(),
  detail: z.string(),
});

/**
 * The keys formats declare (their `show --json` views, their `stats --json` numbers) beside a
 * command's own fields. A format key equal to one of the command's would replace that field in
 * every answer: a bug, refused when this module loads (the build and the tests load it).
 */
function formatFields<T extends Record<string, z.ZodType>>(
  own: Record<string, unknown>,
  declared: T,
  what: string,
): T {
  for (const key of Object.keys(declared))
    if (Object.hasOwn(own, key))
      throw new LedgerError(
        'INTERNAL',
        `a format declares the ${what} key ${key}, which is the command's own`,
        {
          hint: "Give the format's field another name: it would replace the command's own field.",
        },
      );
  return declared;
}

/** A format's view is optional in `show --json`: only that format's records carry it. */
function optionalViews(): { [K in keyof FormatViewSchemas]: z.ZodOptional<FormatViewSchemas[K]> } {
  const fields: Record<string, z.ZodType> = {};
  for (const [key, schema] of Object.entries(formatViewSchemas() as Record<string, z.ZodType>))
    fields[key] = schema.optional().describe(schema.description ?? '');
  return fields as { [K in keyof FormatViewSchemas]: z.ZodOptional<FormatViewSchemas[K]> };
}

const SHOW_BASE = {
  id: recordId,
  format: recordFormat,
  claimedStatus: z.string(),
  effectiveStatus: z.enum(STATUSES),
  reasons: z.array(Reason),
  authors: z.object({ claims: z.literal('agent'), observed: z.literal('ledger') }),
  claims: Claims,
  observed: ObservedV3.partial({ isolation: true }),
  producer: z.object({
    claimed: z.string().nullable(),
    verified: z.array(z.string()).nullable(),
    status: z.enum(['claimed', 'verified']),
  }),
  signatures: z.array(Signature),
};

/** After the formats' views: the published schema lists them in that order, which must not move. */
const SHOW_LIFECYCLE = {
  lifecycle: LifecycleState.extend({ chain: z.array(recordId) })
    .optional()
    .describe('the lifecycle state derived from the chain of steps (the record, then each step)'),
  lifecycleStep: z
    .object({
      action: z.string(),
      to: z.string(),
      of: recordId,
      by: z.string().optional(),
      with: recordId.optional(),
    })
    .optional()
    .describe('set when the record is a lifecycle step: what it did to which record'),
};

export const ShowRecord = z.object({
  ...SHOW_BASE,
  ...formatFields({ ...SHOW_BASE, ...SHOW_LIFECYCLE }, optionalViews(), 'show --json'),
  ...SHOW_LIFECYCLE,
});

export const ShowEmitted = z.object({
  id: recordId,
  format: z.string().describe('the shape asked for with --as'),
  original: z.boolean().describe('true: the bytes the record was made from, unchanged'),
  text: z.string(),
  losses: z.array(z.string()).describe('fields the format cannot carry'),
});

export const ShowOutput = z
  .union([ShowRecord, ShowEmitted])
  .describe('ledger show --json (with --as FORMAT: the re-emitted text)');

const OutputDigest = z.object({
  sha256: z.string(),
  size: z.number().int().nonnegative(),
  truncated: z.boolean(),
});

export const CheckOutput = z.object({
  // Required: every check verify gives has one (verify/types.ts Check.id); the schema said
  // optional while the TypeScript answer type said required, and the output always had it.
  id: z
    .string()
    .describe(
      'which check this is, stable and unique within its record (observed.artifacts[3], id, chain…)',
    ),
  check: z.string().describe('what was checked: id, chain, artifact, witness, reference…'),
  subject: z.string(),
  verdict: z.enum(VERDICTS),
  detail: z.string(),
  rerun: z
    .object({
      isolation: z.enum(['bwrap', 'unshare', 'none']),
      exitCode: z.number().int().nullable(),
      signal: z.string().nullable(),
      timedOut: z.boolean(),
      durationMs: z.number(),
      stdout: OutputDigest,
      stderr: OutputDigest,
      tail: z
        .object({ stdout: z.array(z.string()), stderr: z.array(z.string()) })
        .describe('the last lines of each stream'),
      setup: z.string().optional().describe('the setup step that failed, when one did'),
    })
    .optional()
    .describe('a re-run witness: how it ended, its output digests and last lines'),
});

/** A failing record's lifecycle as verify's gate reads it (src/app/verify-lifecycle.ts). */
const RecordLifecycleOutput = z
  .object({
    state: z
      .string()
      .describe('pending, accepted, rejected, superseded; step: the record is a lifecycle step'),
    step: recordId.optional().describe('the step that set the state'),
    by: z.string().optional().describe('who the step says took it (a claim)'),
    at: z.string().optional().describe('when the step was recorded'),
    with: recordId.optional().describe('supersede --with: the record that supersedes'),
    reviewer: z
      .string()
      .optional()
      .describe('the trusted reviewer whose signature is on the step, when one is'),
    resolved: z.boolean().describe('true: the findings are reported but do not fail the gate'),
    detail: z.string(),
  })
  .describe('set on a record whose claims fail: its lifecycle and whether a step resolved it');

export const VerifyOutput = z
  .object({
    ok: z.boolean(),
    exitCode: z.union([z.literal(0), z.literal(1), z.literal(3)]),
    scope: z
      .object({
        repository: z.string(),
        ref: z.string(),
        commit: gitOid.nullable().describe('null when the ref does not exist'),
        entry: recordId.nullable().describe('the log entry the tip commit names'),
        records: z.number().int().nonnegative().describe('records the ledger holds'),
        verified: z.number().int().nonnegative().describe('records this run verified'),
      })
      .optional()
      .describe('what was verified: the repository, ref, tip commit and log entry'),
    ledger: z.array(CheckOutput).describe('checks of the ledger as a whole (the chain, leaves)'),
    records: z.array(
      z.object({
        id: recordId,
        verdict: z
          .enum(VERDICTS)
          .describe(
            'the record as a whole: contradicted if any check is, else unverifiable, else stale, else verified',
          ),
        checks: z.array(CheckOutput),
        lifecycle: RecordLifecycleOutput.optional(),
      }),
    ),
    notes: z.array(z.string()).describe('what this run could not check, and why'),
    policy: z
      .object({
        source: z.enum(['flag', 'git-config', 'default']),
        path: z.string().optional(),
        digest: z.string(),
      })
      .optional(),
    attestations: z
      .array(z.object({ record: recordId, id: recordId, signed: z.boolean() }))
      .optional(),
    rerun: z
      .object({
        isolation: z.object({
          mode: z.enum(['bwrap', 'unshare', 'none']),
          namespaces: z.array(z.string()),
          network: z.boolean(),
          unavailable: z.array(z.object({ mode: z.string(), reason: z.string() })),
          statement: z.string(),
        }),
        setup: z.array(z.string()),
      })
      .optional()
      .describe('with --rerun: how re-runs were isolated here, and the policy’s setup steps'),
    annotations: z
      .array(z.string())
      .optional()
      .describe('with --annotations github: the workflow-command lines printed for the CI log'),
    cache: z
      .object({
        used: z
          .boolean()
          .describe(
            'true: a tip that verified before under the same policy, version and options was taken from the local cache, and only what is new since it was checked',
          ),
        commit: gitOid.optional().describe('the cached tip commit, when one was found'),
        newRecords: z
          .number()
          .int()
          .nonnegative()
          .optional()
          .describe('records checked because they are new (or changed) since the cached tip'),
        reason: z.string().optional().describe('why the cache was not used'),
      })
      .optional()
      .describe('the verified-state cache (never pushed); --full ignores it'),
    range: z
      .object({
        rev: z.string().describe('the --since revision as given'),
        commit: gitOid,
        mode: z
          .enum(['ledger', 'commit'])
          .describe('ledger: a ledger tip; commit: a commit of the base branch'),
        checked: z.number().int().nonnegative().describe('records added since, checked'),
        skipped: z.number().int().nonnegative().describe('records left out as not new'),
      })
      .optional()
      .describe('with --since REV: which records were checked (the whole chain always is)'),
  })
  .describe('ledger verify --json');

export const SyncOutput = z
  .object({
    ok: okTrue,
    remote: z.string(),
    before: gitOid.optional(),
    after: gitOid.optional(),
    remoteBefore: gitOid.optional(),
    remoteAfter: gitOid.optional(),
    action: z.enum(['up-to-date', 'fast-forward', 'merge']),
    received: z.array(recordId),
    sent: z.number().int().nonnegative(),
    pushed: z.boolean(),
    attempts: z.number().int().positive(),
    shallow: z.boolean(),
    notices: z
      .array(z.string())
      .describe(
        'what did not stop the sync but is worth knowing (signatures gone from the remote)',
      ),
    publishedTo: z
      .string()
      .describe("the remote ref this clone publishes to (refs/ledger/writers/<this clone's id>)"),
    remoteRefs: z
      .number()
      .int()
      .nonnegative()
      .describe('ledger refs the remote holds (writer refs and the legacy refs/ledger/log)'),
    checkpoint: z
      .object({
        ref: z.string(),
        tip: gitOid.optional(),
        published: z.boolean(),
        retired: z.array(z.string()).describe('writer refs deleted from the remote'),
      })
      .optional()
      .describe('with --checkpoint: the checkpoint published and the writer refs it retired'),
  })
  .describe('ledger sync --json');

export const SignOutput = z
  .object({
    ok: okTrue,
    id: recordId.describe('the signed record (or attestation)'),
    signature: recordId.describe('the signature leaf'),
    armored: z.string(),
    added: z.boolean(),
    key: z.string(),
  })
  .describe('ledger sign --json');

const change = z.enum(['added', 'updated', 'unchanged']);
const fileChange = z.object({ path: z.string(), change });
const agentInstall = z.object({
  path: z.string().describe('the hook settings file'),
  command: z.string().describe('the hook command written for each event'),
  events: z.array(z.object({ event: z.string(), change })),
  created: z.boolean(),
  mcp: fileChange.optional().describe('the MCP server entry, when in another file'),
});

export const InitOutput = z
  .object({
    ok: okTrue,
    root: z.string(),
    policy: z.object({
      path: z.string().describe('the policy template (never read by ledger)'),
      created: z.boolean(),
      trusted: z.literal(false),
      allowedSigners: z.string().describe('the allowed_signers template the policy names'),
      install: z
        .array(z.string())
        .describe('shell commands that install both outside the repository'),
    }),
    remotes: z.array(z.object({ name: z.string(), added: z.array(z.string()) })),
    claudeCode: z
      .object({
        path: z.string().describe('the Claude Code settings file'),
        command: z.string().describe('the hook command written for each event'),
        events: z.array(
          z.object({ event: z.string(), change: z.enum(['added', 'updated', 'unchanged']) }),
        ),
        created: z.boolean(),
      })
      .optional()
      .describe('with --claude-code: what was written to .claude/settings.json'),
    codex: agentInstall
      .optional()
      .describe('with --codex: .codex/hooks.json (Stop, SubagentStop) and .codex/config.toml'),
    gemini: agentInstall
      .optional()
      .describe('with --gemini: .gemini/settings.json (AfterAgent and mcpServers.ledger)'),
    cursor: agentInstall
      .optional()
      .describe(
        'with --cursor: .cursor/hooks.json (afterAgentResponse, stop) and .cursor/mcp.json',
      ),
    agentsMd: fileChange.optional().describe('with --agents-md: the section in AGENTS.md'),
    warnings: z
      .array(z.string())
      .optional()
      .describe('what the user should know (the hook command holds this machine’s paths)'),
  })
  .describe('ledger init --json');

const counts = z.record(z.string(), z.number().int().nonnegative());
const STATS_BASE = {
  records: z.number().int().nonnegative(),
  byFormat: counts,
  byEffectiveStatus: counts,
  lowered: z.number().int().nonnegative(),
  lifecycleSteps: z
    .number()
    .int()
    .nonnegative()
    .describe('accept/reject/supersede steps: not agent runs, so in none of the counts above'),
  byLifecycle: counts.describe(
    'handoffs by lifecycle state: pending, accepted, rejected, superseded',
  ),
};

export const StatsOutput = z
  .object({
    ...STATS_BASE,
    ...formatFields(STATS_BASE, formatStatsSchemas(), 'stats --json'),
  })
  .describe('ledger stats --json');

export const LifecycleOutput = z
  .object({
    ok: okTrue,
    id: recordId.describe('the new lifecycle record'),
    from: z.string().describe('the state before'),
    to: z.string().describe('the state after'),
    of: z.unknown().describe('the lifecycle link as stored in the record'),
  })
  .describe('ledger accept|reject|supersede --json');

export const VersionOutput = z
  .object({
    name: z.string(),
    version: z.string(),
    platform: z.string(),
    arch: z.string(),
    node: z.string(),
    line: z.string().describe('what ledger --version prints'),
  })
  .describe('ledger version --json');

export const SchemaOutput = z
  .union([
    z.object({
      schemas: z.array(z.object({ name: z.string(), description: z.string(), file: z.string() })),
    }),
    z.record(z.string(), z.unknown()).describe('a JSON Schema document (ledger schema NAME)'),
  ])
  .describe('ledger schema --json: the list of schemas, or one schema');

/** `ledger hook AGENT --json`: each agent's answer shape and message field. */
function hookOutput(agent: string, decision: 'block' | 'deny' | undefined, message: string) {
  return z
    .union([
      z.object({
        ok: okTrue,
        // Typed as a shape, not as the union of the two literals: the union's declaration does
        // not type-check where the library's declarations are (views.ts infers its types here).
        response: z
          .object(
            (decision === undefined
              ? { followup_message: z.string().optional() }
              : {
                  decision: z.literal(decision).optional(),
                  reason: z.string().optional(),
                  systemMessage: z.string().optional(),
                }) as z.ZodRawShape,
          )
          .describe('the hook-protocol answer printed without --json'),
        event: z.string(),
        outcome: z.enum(['recorded', 'refused', 'no-handoff', 'ignored']),
        message: z.enum([message, 'transcript']).optional(),
        format: z.enum(FORMATS).optional(),
        record: RecordOutput.optional(),
        problems: z
          .array(
            z.object({
              path: z.string(),
              message: z.string(),
              expected: z.string().optional(),
              got: z.string().optional(),
            }),
          )
          .optional()
          .describe('why the handoff was refused (nothing was written)'),
        lowered: z.boolean().optional(),
        blocked: z.boolean(),
      }),
      ErrorOutput,
    ])
    .describe(`ledger hook ${agent} --json: the whole outcome instead of the hook answer`);
}

export const HookClaudeCodeOutput = hookOutput('claude-code', 'block', 'last_assistant_message');
export const HookCodexOutput = hookOutput('codex', 'block', 'last_assistant_message');
export const HookGeminiOutput = hookOutput('gemini', 'deny', 'prompt_response');
export const HookCursorOutput = hookOutput('cursor', undefined, 'text');

export const ExportOutput = z
  .object({
    ok: okTrue,
    id: recordId,
    kind: z.enum(['in-toto-link', 'in-toto-statement', 'dsse-envelope']),
    path: z.string().nullable().describe('where it was written (null: printed with --out -)'),
    keyid: z.string().optional(),
    step: z.string().optional(),
    materials: z.number().int().nonnegative().optional(),
    products: z.number().int().nonnegative().optional(),
    subjects: z.number().int().nonnegative().optional(),
    skipped: z.array(z.string()).describe('base-tree entries that are not files'),
    skippedProducts: z
      .array(z.string())
      .optional()
      .describe('link: candidate-tree entries that are not files (not products)'),
    witnesses: z
      .object({
        verified: z.number().int().nonnegative().describe('witnesses verified at export time'),
        unverified: z
          .array(
            z.object({
              witness: z.number().int().nonnegative(),
              command: z.string(),
              verdict: z.enum(VERDICTS),
              detail: z.string(),
            }),
          )
          .describe('witnesses exported without verification (--allow-unverified), and why'),
      })
      .describe('what the export vouches for: only verified witness results are signed as such'),
    verification: z
      .object({
        exitCode: z.number().int(),
        contradicted: z.number().int().nonnegative(),
        unverifiable: z.number().int().nonnegative(),
      })
      .describe('the export-time verification of the record'),
  })
  .describe('ledger export --json');

const FullCheck = CheckOutput.extend({ integrity: z.boolean().optional() });

/** The last lines of a witness's kept output, as the audit page shows them. */
const OutputTail = z.object({
  lines: z.array(z.string()),
  omitted: z.number().int(),
  more: z.boolean(),
});

export const ReportOutput = z
  .object({
    ok: z.boolean(),
    exitCode: z.number().int(),
    written: z.object({ html: z.string().optional(), markdown: z.string().optional() }),
    report: z.object({
      generatedAt: z.string(),
      ledgerVersion: z.string(),
      ok: z.boolean(),
      exitCode: z.number().int(),
      strict: z.boolean(),
      policy: VerifyOutput.shape.policy,
      scope: VerifyOutput.shape.scope,
      notes: z.array(z.string()),
      ledger: z.array(FullCheck),
      records: z.array(
        z.object({
          id: recordId,
          verdict: z.enum(VERDICTS),
          verdicts: z.array(z.enum(VERDICTS)),
          integrity: z.boolean(),
          record: z
            .object({
              format: z.string(),
              task: z.string().optional(),
              run: z.string().optional(),
              summary: z.string().optional(),
              recordedAt: z.string(),
              producer: z.string().optional(),
              claimedStatus: z.string(),
              effectiveStatus: z.string(),
              reasons: z.array(Reason),
              artifacts: z.array(
                z.object({
                  path: z.string(),
                  sha256: z.string(),
                  size: z.number(),
                  blob: z.string(),
                }),
              ),
              anchors: z.object({
                baseCommit: z.string().nullable(),
                baseTree: z.string(),
                candidateTree: z.string(),
                branch: z.string().optional(),
              }),
              witnesses: z.array(
                z.object({
                  command: z.string(),
                  exitCode: z.number().int().nullable(),
                  signal: z.string().nullable(),
                  timedOut: z.boolean(),
                  durationMs: z.number(),
                  output: z
                    .object({
                      stdout: OutputTail.optional(),
                      stderr: OutputTail.optional(),
                      note: z.string().optional(),
                    })
                    .optional(),
                }),
              ),
              files: z
                .array(
                  z.object({
                    path: z.string(),
                    sha256: z.string(),
                    size: z.number(),
                    change: z.enum(['added', 'modified', 'deleted', 'unchanged', 'unknown']),
                    diff: z
                      .object({
                        lines: z.array(
                          z.object({ op: z.enum([' ', '+', '-', '@']), text: z.string() }),
                        ),
                        added: z.number().int(),
                        removed: z.number().int(),
                        omitted: z.number().int(),
                      })
                      .optional(),
                    note: z.string().optional(),
                  }),
                )
                .optional()
                .describe('the claimed files with bounded diffs, base → candidate'),
            })
            .optional(),
          checks: z.array(FullCheck),
          signatures: z.array(
            z.object({
              signer: z.string().nullable(),
              verified: z.boolean(),
              key: z.string().optional(),
              reason: z.string(),
            }),
          ),
          lifecycle: LifecycleState.extend({
            resolved: z
              .boolean()
              .optional()
              .describe('on a record whose claims fail: whether the step resolved it'),
            detail: z.string().optional(),
          })
            .optional()
            .describe("a handoff's lifecycle state"),
          lifecycleStep: z
            .object({
              action: z.string(),
              to: z.string(),
              of: recordId,
              by: z.string().optional(),
              with: recordId.optional(),
            })
            .optional()
            .describe('set when the record is a lifecycle step'),
        }),
      ),
      counts: z.record(z.enum(VERDICTS), z.number().int().nonnegative()),
      tasks: z.array(z.string()),
    }),
  })
  .describe('ledger report --json: the audit report the page is made from');

// ---------------------------------------------------------------------------------------------
// The MCP tools' answers (`ledger mcp`): each tool's structured content, published as
// `ledger schema mcp NAME` and sent as the tool's outputSchema, so the two cannot differ.
// ---------------------------------------------------------------------------------------------

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
  .object({ ...mcpAnswer, records: LogOutput })
  .describe('ledger mcp, tool log: ledger log --json as records, newest first');

export const McpErrorOutput = ErrorOutput.extend({ truncated: McpTruncated.optional() }).describe(
  'ledger mcp, any tool, on failure: the error shape, with the exit code the CLI would exit with',
);
