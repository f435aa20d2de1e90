/** What `init`, `version`, `schema` and the agents' `hook` commands answer. */
import { z } from 'zod';
import { FORMATS } from '../../../model/vocabulary.js';
import { RecordOutput } from './record-verify.js';
import { ErrorOutput, okTrue } from './shared.js';

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
        .describe(
          "shell commands that install ledger's own templates outside the repository (ledger init --install-policy; never a copy from the repository)",
        ),
      installDir: z
        .string()
        .optional()
        .describe('where --install-policy writes policy.json and allowed_signers'),
      foreign: z
        .array(z.object({ path: z.string(), reason: z.string() }))
        .optional()
        .describe("copies in the repository that are not ledger's template: not used"),
      installed: z
        .object({
          dir: z.string(),
          files: z.array(z.object({ path: z.string(), change: z.enum(['created', 'kept']) })),
          gitConfig: z
            .object({ value: z.string(), change: z.enum(['set', 'kept']) })
            .describe('ledger.policy in the global git config: set, or already set and kept'),
        })
        .optional()
        .describe("with --install-policy: the templates written from ledger's own bytes"),
    }),
    remotes: z.array(
      z.object({
        name: z.string(),
        added: z.array(z.string()),
        fetched: z
          .literal(false)
          .optional()
          .describe(
            "set when nothing of the remote's ledger was fetched here yet and this ledger is empty: ledger sync REMOTE gets its records",
          ),
      }),
    ),
    gitDir: z
      .string()
      .optional()
      .describe(
        'the git dir whose config init changed, when it lies outside the work tree and does not link back to it',
      ),
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
      .describe(
        'what the user should know (the hook command holds this machine’s paths; a switch in the user’s or the managed settings turns the agent’s hooks off)',
      ),
  })
  .describe('ledger init --json');

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
