/**
 * The write steps where LEDGER_TEST_KILL_AT SIGKILLs a process (src/model/faults.ts), in the
 * order a run reaches them: the crash tests kill at each, the random writer walk at any.
 */

/** `record`: src/app/record.ts, src/ledger/append.ts, src/store/git/refs.ts. */
export const RECORD_KILL_POINTS = [
  'before-append',
  'after-objects',
  'after-commit-object',
  'before-ref-update',
  'after-ref-update',
] as const;

/** `sync` (src/sync/README.md); `--checkpoint` adds `checkpoint-after-publish` after these. */
export const SYNC_KILL_POINTS = [
  'sync-after-fetch',
  'sync-after-merge-commit',
  'sync-before-adopt',
  'before-ref-update',
  'after-ref-update',
  'sync-after-adopt',
  'sync-after-push',
] as const;
