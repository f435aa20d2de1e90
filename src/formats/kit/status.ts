/**
 * A system's status words, both ways, from one table: what a claimed word means in the
 * ledger's vocabulary (`statusOf`), and which word the system writes for a ledger status
 * (`wordFor`: the first word with that meaning, else the fallback the system uses for a status
 * it has no word for). One table per format, so that reading and writing cannot disagree.
 */
import type { Status } from '../../model/record.js';

export interface Vocabulary {
  statusOf(word: string): Status | undefined;
  wordFor(status: Status): string | undefined;
  /** The words, as written in the table. */
  words: readonly string[];
}

export function vocabulary(
  meaning: Readonly<Record<string, Status>>,
  options: { fold?: 'upper' | 'lower'; fallback?: Partial<Record<Status, string>> } = {},
): Vocabulary {
  const fold = (w: string): string =>
    options.fold === 'upper'
      ? w.trim().toUpperCase()
      : options.fold === 'lower'
        ? w.trim().toLowerCase()
        : w;
  const table = new Map(Object.entries(meaning).map(([w, s]) => [fold(w), s]));
  return {
    statusOf: (word) => table.get(fold(word)),
    wordFor: (status) =>
      Object.entries(meaning).find(([, s]) => s === status)?.[0] ?? options.fallback?.[status],
    words: Object.keys(meaning),
  };
}
