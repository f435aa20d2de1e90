import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { initRepository } from '../src/app/init.js';
import {
  prepareAgentHook,
  type InstallResult,
  type PreparedInstall,
} from '../src/integrations/claude-code/settings.js';
import {
  prepareAgentsMd,
  prepareCodexMcp,
  prepareCursorMcp,
  type FileChange,
} from '../src/integrations/agent-files.js';
import type { AgentName } from '../src/integrations/agents.js';
import { ledgerProgram } from '../src/integrations/program.js';
import { userHookSwitches } from '../src/integrations/user-switches.js';
import {
  BLOCK_MODES,
  hookOptionsFrom,
  type HookFlags,
  type HookOptions,
} from '../src/integrations/claude-code/options.js';
import { LedgerError } from '../src/model/errors.js';
import { FORMATS, MAX_TIMEOUT_SECONDS } from '../src/model/vocabulary.js';
import { sanitizeLine } from '../src/paths/index.js';
import { dirname } from 'node:path';

export default class Init extends LedgerCommand {
  static override summary = 'Prepare this repository for the ledger.';
  static override description =
    'Adds refspecs so that plain `git fetch` and `git push` carry refs/ledger/* (fetched into ' +
    'refs/ledger-remotes/<remote>/*, never over your own ledger), and writes a policy template and ' +
    'an allowed_signers template to .git/ledger/ for reference. ledger never reads those files (the ' +
    "agent can write them): --install-policy writes ledger's own templates (never the copies in the " +
    'repository) to your config directory ($XDG_CONFIG_HOME/ledger, else ~/.config/ledger), never ' +
    'over a file there, and sets `git config --global ledger.policy` when it is not set. The ' +
    'template names no auditor: add your key and name it in signatures.roles.auditor. ' +
    'With --claude-code, --codex, --gemini or --cursor it adds the stop hook (ledger hook AGENT) ' +
    "to that agent's project settings, and for Codex, Gemini CLI and Cursor the MCP server " +
    '(ledger mcp) too, ' +
    'merging into what is there; --agents-md adds a short section on handing over to AGENTS.md. ' +
    'The commands call `ledger` when the ledger on PATH is this install, else this install by ' +
    'its absolute paths (said in the output). Safe to run again.';
  static override examples = [
    '<%= config.bin %> init',
    '<%= config.bin %> init --remote origin --json',
    '<%= config.bin %> init --install-policy',
    '<%= config.bin %> init --claude-code --witness "npm test" --block lowered',
    '<%= config.bin %> init --codex --gemini --agents-md --block refused',
    '<%= config.bin %> init --cursor --block lowered',
    '<%= config.bin %> init --claude-code --sign --signing-key ~/.ssh/ledger_recorder',
  ];
  static override flags = {
    remote: Flags.string({ description: 'Only configure this remote (default: every remote).' }),
    'install-policy': Flags.boolean({
      description:
        "Also write ledger's own policy and allowed_signers templates to your config directory (never over a file there) and set git config --global ledger.policy when it is unset.",
      default: false,
    }),
    'claude-code': Flags.boolean({
      description:
        'Also add `ledger hook claude-code` to .claude/settings.json (Stop and SubagentStop), keeping everything already there.',
      default: false,
    }),
    codex: Flags.boolean({
      description:
        'Also add `ledger hook codex` to .codex/hooks.json (Stop, SubagentStop) and the MCP server to .codex/config.toml.',
      default: false,
    }),
    gemini: Flags.boolean({
      description:
        'Also add `ledger hook gemini` (AfterAgent) and the MCP server (mcpServers.ledger) to .gemini/settings.json.',
      default: false,
    }),
    cursor: Flags.boolean({
      description:
        'Also add `ledger hook cursor` to .cursor/hooks.json (afterAgentResponse, stop) and the MCP server (mcpServers.ledger) to .cursor/mcp.json.',
      default: false,
    }),
    'agents-md': Flags.boolean({
      description: 'Also add a short section to AGENTS.md telling any agent how to hand over.',
      default: false,
    }),
    witness: Flags.string({
      description: 'With an agent flag: a witness the hook runs when it records (repeatable).',
      multiple: true,
    }),
    'witness-timeout': Flags.integer({
      description: 'With an agent flag: seconds before a witness is killed.',
      min: 1,
      max: MAX_TIMEOUT_SECONDS,
    }),
    block: Flags.string({
      description: `With an agent flag: when the hook blocks the stop (${BLOCK_MODES.join(', ')}).`,
    }),
    format: Flags.string({
      description: `With an agent flag: the handoff format to expect (${FORMATS.join(', ')}; default: detected).`,
    }),
    sign: Flags.boolean({
      description:
        'With an agent flag: the hook signs each record as its recorder ("recorded by <you>\'s ledger"), as `ledger hook AGENT --sign`.',
    }),
    'signing-key': Flags.string({
      description: 'With --sign: the key the hook signs with (default: user.signingKey).',
    }),
  };

  protected async execute(): Promise<Output> {
    const { flags } = await this.parse(Init);
    const hookOptions = agentHookOptions(flags);
    const agents = (['claude-code', 'codex', 'gemini', 'cursor'] as const).filter((a) => flags[a]);
    const program = ledgerProgram();
    const install = { ...hookOptions, program: program.program };
    const mcp = { command: program.command, args: [...program.args, 'mcp'] };
    // Everything checked before init writes anything: a broken settings file leaves the
    // repository as it was.
    const prepared = new Map<AgentName, PreparedInstall>();
    for (const agent of agents)
      prepared.set(
        agent,
        await prepareAgentHook(agent, process.cwd(), install, agent === 'gemini' ? mcp : undefined),
      );
    const files: { codexMcp?: FileChange; cursorMcp?: FileChange; agentsMd?: FileChange } = {};
    const root = agents.length > 0 || flags['agents-md'] ? workTreeOf(prepared) : undefined;
    if (flags.codex) files.codexMcp = await prepareCodexMcp(await root!, mcp);
    if (flags.cursor) files.cursorMcp = await prepareCursorMcp(await root!, mcp);
    if (flags['agents-md']) files.agentsMd = await prepareAgentsMd(await root!);
    const result = await initRepository(process.cwd(), flags.remote, {
      installPolicy: flags['install-policy'],
      program: program.program,
    });
    const written: Partial<Record<AgentName, InstallResult>> = {};
    for (const [agent, p] of prepared) written[agent] = await p.write();
    if (files.codexMcp) await files.codexMcp.write();
    if (files.cursorMcp) await files.cursorMcp.write();
    if (files.agentsMd) await files.agentsMd.write();
    const warnings = [
      ...(agents.length > 0 && program.warning ? [program.warning] : []),
      ...(await userHookSwitches(agents)),
    ];
    const claudeCode = written['claude-code'];
    const lines = [`ledger initialised in ${sanitizeLine(result.root)}`, ...policyLines(result)];
    if (result.remotes.length === 0)
      lines.push('  no remotes yet: run ledger init again after git remote add');
    for (const remote of result.remotes) {
      // Remote names come from the repository's config, which the agent can write.
      lines.push(
        `  remote ${sanitizeLine(remote.name)}: ${remote.added.length === 0 ? 'already configured' : sanitizeLine(remote.added.join(', '))}`,
      );
    }
    for (const remote of result.remotes)
      if (remote.fetched === false)
        lines.push(
          `nothing fetched from ${sanitizeLine(remote.name)} yet: run ledger sync ${sanitizeLine(remote.name)} to get its records, if it has any`,
        );
    for (const [agent, installed] of Object.entries(written)) {
      const changes = installed.events.map((e) => `${e.event} ${e.change}`).join(', ');
      lines.push(
        `  ${AGENT_TITLE[agent as AgentName]}: ${sanitizeLine(installed.path)} (${changes})`,
      );
      lines.push(`    hook: ${sanitizeLine(installed.command)}`);
      if (agent === 'codex' && files.codexMcp)
        lines.push(
          `    mcp: ${sanitizeLine(files.codexMcp.path)} (mcp_servers.ledger ${files.codexMcp.change})`,
        );
      if (agent === 'cursor' && files.cursorMcp)
        lines.push(
          `    mcp: ${sanitizeLine(files.cursorMcp.path)} (mcpServers.ledger ${files.cursorMcp.change})`,
        );
    }
    if (files.agentsMd)
      lines.push(
        `  AGENTS.md: ${sanitizeLine(files.agentsMd.path)} (handing over ${files.agentsMd.change})`,
      );
    for (const warning of warnings) lines.push(`  note: ${sanitizeLine(warning)}`);
    const fileChange = (f: FileChange) => ({ path: f.path, change: f.change });
    const codex = written.codex && {
      ...written.codex,
      ...(files.codexMcp ? { mcp: fileChange(files.codexMcp) } : {}),
    };
    const cursor = written.cursor && {
      ...written.cursor,
      ...(files.cursorMcp ? { mcp: fileChange(files.cursorMcp) } : {}),
    };
    return {
      json: {
        ok: true,
        ...result,
        ...(claudeCode ? { claudeCode } : {}),
        ...(codex ? { codex } : {}),
        ...(written.gemini ? { gemini: written.gemini } : {}),
        ...(cursor ? { cursor } : {}),
        ...(files.agentsMd ? { agentsMd: fileChange(files.agentsMd) } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      },
      text: lines.join('\n'),
    };
  }
}

/** The git dir when it is not this work tree's, the templates, and the policy install. */
function policyLines(result: Awaited<ReturnType<typeof initRepository>>): string[] {
  const { policy } = result;
  const lines = [];
  if (result.gitDir !== undefined)
    lines.push(
      `  git dir: ${sanitizeLine(result.gitDir)} — outside this work tree and not linked back to it: its config is the one changed`,
    );
  lines.push(
    `  policy template: ${sanitizeLine(policy.path)}${policy.created ? ' (created)' : ' (kept)'}, allowed_signers template beside it — for reference, never read by ledger`,
  );
  for (const copy of policy.foreign ?? [])
    lines.push(
      `  ${sanitizeLine(copy.path)}: not ledger's template: not used (${sanitizeLine(copy.reason)})`,
    );
  const installed = policy.installed;
  if (installed === undefined) {
    lines.push(
      `  to install ledger's own template as your policy (in ${sanitizeLine(policy.installDir ?? '')}, outside the repository), run:`,
      ...policy.install.map((command) => `    ${sanitizeLine(command)}`),
    );
    return lines;
  }
  for (const file of installed.files)
    lines.push(`  installed: ${sanitizeLine(file.path)} (${file.change})`);
  lines.push(
    installed.gitConfig.change === 'set'
      ? `  git config --global ledger.policy ${sanitizeLine(installed.gitConfig.value)} (set)`
      : `  git config --global ledger.policy is already ${sanitizeLine(installed.gitConfig.value)}: left as it is`,
    '  the template names no auditor: add your own key to allowed_signers and name it in signatures.roles.auditor (never a key an agent holds)',
  );
  return lines;
}

const AGENT_TITLE: Record<AgentName, string> = {
  'claude-code': 'claude code',
  codex: 'codex',
  gemini: 'gemini',
  cursor: 'cursor',
};

/** The work tree the agents' files go into (a bare repository has none: said, exit 2). */
async function workTreeOf(prepared: Map<AgentName, PreparedInstall>): Promise<string> {
  const first = [...prepared.values()][0];
  if (first) return dirname(dirname(first.result.path));
  const { openRepo } = await import('../src/store/git/repo.js');
  const { requireWorkTree } = await import('../src/app/repo.js');
  return requireWorkTree(await openRepo(process.cwd()), 'ledger init --agents-md');
}

/** The hooks' options, checked before anything is written; undefined without an agent flag. */
function agentHookOptions(
  flags: HookFlags & { 'claude-code': boolean; codex: boolean; gemini: boolean; cursor: boolean },
): HookOptions | undefined {
  if (flags['claude-code'] || flags.codex || flags.gemini || flags.cursor)
    return hookOptionsFrom(flags, 'cannot initialise');
  const given = (
    ['witness', 'witness-timeout', 'block', 'format', 'sign', 'signing-key'] as const
  ).filter((name) => flags[name] !== undefined);
  if (given.length === 0) return undefined;
  throw new LedgerError('USAGE', `--${given.join(', --')} configure the agents' hooks`, {
    problems: given.map((name) => ({
      path: name,
      message: 'needs --claude-code, --codex, --gemini or --cursor',
    })),
    hint: 'Nothing was written. Add an agent flag, or leave these flags out.',
  });
}
