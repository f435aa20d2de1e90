/**
 * The formats' surface a record made from flags alone needs (`record --status`), without the
 * registry: the ledger's own format module and the zod-issue reader. Importing the registry
 * (index.ts) is importing every format module and their parsers (yaml among them), which a
 * record that parses no handoff file never uses: about a fifth of its start-up (issue 21).
 * Anything that reads a handoff file, detects a format or names another one loads the registry.
 */
export { ledger as ownFormat } from './ledger/index.js';
export { issuesToProblems } from './kit/problems.js';
