/**
 * Whether to sign when the user did not say: `ledger.sign` from the user's own git config
 * (never the repository's, which the agent can write). Apart from trust.ts so that `record`
 * can ask without loading signing (ssh-keygen, policy parsing) at start-up.
 */
import { parseGitBool, USER_SCOPES } from '../../store/git/config.js';
import type { RepoPaths } from '../../store/git/repo.js';

export function signByDefault(repo: RepoPaths): boolean {
  return parseGitBool(repo.config.get('ledger.sign', USER_SCOPES)) === true;
}
