export {
  checkRepoPath,
  isDotGitSegment,
  resolveInside,
  type RepoPathResult,
  type ResolveResult,
} from './repo-path.js';
export { escapeForTerminal, sanitizeLine } from './terminal.js';
