/**
 * `log`'s listing with what a reader must be told beside it: entries this clone held that are
 * missing (a rollback, held-entries.ts), a look past `-n` that stopped with entries left (a
 * concurrent head of a listed task may be below it), and remotes whose ledger this clone has not
 * taken in (unfetched.ts). One body for `ledger log` (src/cli/log-view.ts) and the library's
 * `logWithNotices` under the MCP `log` tool: the MCP answer carried only the listing, so an agent
 * asking through MCP did not learn what a person at the terminal learns (red team, round twelve).
 */
import { heldEntriesMissing, type HeldEntriesMissing } from './held-entries.js';
import { listLogChecked, lookPastCut, type LogItem } from './query.js';
import type { Opened } from './repo.js';
import { unfetchedLedgerHints } from './unfetched.js';

export interface LogAnswer {
  items: LogItem[];
  /** With a limit: the look past the cut stopped with entries left that may hold concurrent records. */
  unchecked: boolean;
  /** One line per remote whose ledger holds records this one does not. */
  unfetched: string[];
  /** Entries this clone held that the ledger no longer holds. */
  rollback?: HeldEntriesMissing;
}

export async function readLogAnswer(
  { repo, store }: Opened,
  options: { task?: string; limit?: number },
): Promise<LogAnswer> {
  // All settle before the answer (or a throw) leaves withRepo: a read after the store closed
  // would start its cat-file again.
  const [rollback, listed, unfetched] = await Promise.allSettled([
    heldEntriesMissing(repo, store),
    listLogChecked(store, {
      ...(options.task !== undefined ? { task: options.task } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    }),
    unfetchedLedgerHints(repo, store),
  ]);
  const lost = settled(rollback);
  return {
    ...settled(listed),
    unfetched: settled(unfetched),
    ...(lost === undefined ? {} : { rollback: lost }),
  };
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/**
 * What `ledger log` says on stderr after the listing (the rollback warning is apart: it is said
 * with --json too, held-entries.ts). `asked`: how the caller asked for the limit (`log -n 5`,
 * `limit 5`), so the sentence names what the reader typed.
 */
export function listingNotices(answer: LogAnswer, asked: string, limit: number): string[] {
  return [
    ...(answer.unchecked
      ? [
          // The look past the cut is bounded (log -n stays cheap on a fleet that never synced).
          `${asked}: looked ${lookPastCut(limit)} entries past the listing for records of the listed tasks concurrent with them, and stopped with more left: some may be there (ledger log --task TASK lists all of a task's records; show --latest TASK names its concurrent ones)`,
        ]
      : []),
    ...answer.unfetched,
  ];
}
