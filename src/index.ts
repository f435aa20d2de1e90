/**
 * The use cases gathered in one place for in-process callers (the tests that drive record,
 * verify and sync without spawning the CLI). Commands import the `src/app/` module they need
 * directly, so that each loads only its own graph; the package's public API is
 * `src/library.ts`. Nothing here knows about oclif.
 */
export { initRepository, type InitResult } from './app/init.js';
export { recordHandoff, type RecordRequest, type RecordOutcome } from './app/record.js';
export { verifyRepository, type VerifyRequest } from './app/verify.js';
export { signRecord, type SignRequest, type SignOutcome } from './app/sign.js';
export { syncRepository, type SyncRequest, type SyncResult } from './app/sync.js';
export { listLog, loadRecord, resolveId, type LogItem } from './app/query.js';
export { withRepo } from './app/repo.js';
export { LedgerError, EXIT } from './model/errors.js';
export type { LedgerRecord } from './model/record.js';
export type { VerifyReport, Check } from './verify/types.js';
