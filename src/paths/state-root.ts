/**
 * Where this user's state lives, one definition for every writer of it: the memory
 * (src/app/policy/local-state.ts), the verify cache, writer ids, and the Cursor hook's turn state
 * (src/integrations/cursor-state.ts). Here, importing nothing of ours, so that a reader can ask
 * whether there is any state at all (src/app/held-entries.ts) without loading the memory's code
 * and node:crypto (`log` on an empty ledger evaluates neither: test/cli/startup.test.ts), and the
 * hooks' fast path can use it without loading src/app (test/integrations/agents.test.ts).
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** `$XDG_STATE_HOME/ledger`, default `~/.local/state/ledger`. */
export function stateRoot(): string {
  const base = process.env['XDG_STATE_HOME'];
  let home = '/';
  try {
    home = homedir() || '/';
  } catch {
    // no home: fall back to /
  }
  return join(
    base !== undefined && isAbsolute(base) ? base : join(home, '.local', 'state'),
    'ledger',
  );
}
