/**
 * Each `ledger hook AGENT --help` says where the hook records: the project its agent names to
 * hooks (src/integrations/project.ts), not the directory the agent last moved to — the help is
 * where a user installing the hook by hand looks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, gitdir, runCli } from '../helpers/git.js';

afterAll(cleanup);

/** What names the project directory, per agent, in the order the hook reads them. */
const PROJECT_NAMED_BY = {
  'claude-code': ['CLAUDE_PROJECT_DIR'],
  gemini: ['GEMINI_PROJECT_DIR, then CLAUDE_PROJECT_DIR'],
  cursor: ['the first of its workspace_roots'],
  codex: ["the input's cwd"],
} as const;

describe('ledger hook AGENT --help', () => {
  it('names where each hook records: the project its agent names, not where the agent cd-ed', async () => {
    const repo = gitdir();
    const agents = Object.keys(PROJECT_NAMED_BY) as Array<keyof typeof PROJECT_NAMED_BY>;
    const helps = await Promise.all(agents.map((agent) => runCli(['hook', agent, '--help'], repo)));
    agents.forEach((agent, i) => {
      const help = helps[i]!;
      expect(help.code, help.stderr).toBe(0);
      // oclif wraps the description: compare with the line breaks and indents as single spaces.
      const text = help.stdout.replace(/\s+/g, ' ');
      expect(text, agent).toMatch(/It records in the project/);
      for (const named of PROJECT_NAMED_BY[agent]) expect(text, agent).toContain(named);
      expect(text, agent).toContain("never in the directory the agent last cd'd into");
    });
  });
});
