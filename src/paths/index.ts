export {
  checkRepoPath,
  isDotGitSegment,
  resolveInside,
  resolveMemo,
  type RepoPathResult,
  type ResolveMemo,
  type ResolveResult,
} from './repo-path.js';
export {
  escapeForTerminal,
  neutralizeJsonText,
  neutralizeWorkflowCommands,
  printableLine,
  printableText,
  sanitizeLine,
  toTerminalJson,
} from './terminal.js';
export {
  checkRegularFile,
  readRegularFile,
  readRegularFileSync,
  REPLACED,
  sha256RegularFile,
  type HashFileResult,
  type ReadFileOptions,
  type ReadFileResult,
} from './read-file.js';
export { quotedBy } from './quoted-claim.js';
export { writeAtomically } from './write-atomically.js';
