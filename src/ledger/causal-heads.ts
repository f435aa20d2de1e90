/**
 * Which records of a task are its heads: those no other record of the task descends from through
 * the log entries' `prev` links. The merged order (height, then entry id) is causal, not recency
 * across writers: a record made in a fresh clone has height 1 and sorts below every record of a
 * longer chain, though nothing was recorded after it there. So "the first record of the task in
 * the merged order" is only one of its heads, and readers that show one must say when there are
 * others (red team, round eleven). No clock decides between them: `recordedAt` is the agent's.
 *
 * Fed the entries as `walkLog` gives them (every entry after all of its descendants), it marks each
 * entry with the tasks of records above it that descend from it. A mark is a set of tasks per
 * entry still on the walk's frontier, so a linear history would copy ever larger sets down the
 * chain; instead, when the frontier holds a single entry, every entry below it is its ancestor,
 * so its marks hold for all of them and move into `base`, and the frontier starts afresh. Sets
 * then hold only the tasks recorded since the histories last met: a few in a fleet that syncs.
 */
import type { LogEntry } from '../model/record.js';

const NONE: ReadonlySet<string> = new Set();

export class CausalHeads {
  /** Tasks every entry not yet fed descends into: some record of each is above all of them. */
  private readonly base = new Set<string>();
  /** Entries named by a fed entry's `prev` and not yet fed, with the tasks marking them. */
  private readonly frontier = new Map<string, Set<string>>();
  private readonly fed = new Set<string>();
  private readonly heads = new Map<string, string[]>();

  /** Whether a record of `task` already fed descends from this entry (then it is no head). */
  isBelow(entryId: string, task: string): boolean {
    return this.base.has(task) || (this.frontier.get(entryId)?.has(task) ?? false);
  }

  /**
   * Feeds one entry; `task` is its record's task when the caller tracks that task (undefined
   * for a join entry, or a record it does not ask about). Answers, for a tracked record, whether
   * it is a head and, when an earlier-fed head of the task exists, the first of them.
   */
  feed(
    entryId: string,
    entry: LogEntry,
    task: string | undefined,
  ): { head: boolean; first?: string } {
    const marks = this.frontier.get(entryId) ?? NONE;
    this.frontier.delete(entryId);
    this.fed.add(entryId);
    let answer: { head: boolean; first?: string } = { head: false };
    let added: string | undefined;
    if (task !== undefined && entry.record !== null && !this.isBelowMarks(marks, task)) {
      const heads = this.heads.get(task);
      answer = heads === undefined ? { head: true } : { head: true, first: heads[0]! };
      if (heads === undefined) this.heads.set(task, [entry.record]);
      else heads.push(entry.record);
      added = task;
    }
    if (this.frontier.size === 0) {
      // Every entry not fed yet is an ancestor of this one: what marks it marks them all.
      for (const t of marks) this.base.add(t);
      if (added !== undefined) this.base.add(added);
      for (const prev of entry.prev) if (!this.fed.has(prev)) this.frontier.set(prev, new Set());
      return answer;
    }
    for (const prev of entry.prev) {
      if (this.fed.has(prev)) continue;
      let into = this.frontier.get(prev);
      if (into === undefined) this.frontier.set(prev, (into = new Set()));
      for (const t of marks) into.add(t);
      if (added !== undefined && !this.base.has(added)) into.add(added);
    }
    return answer;
  }

  /** The heads of `task` fed so far, in the order fed (the merged order's first is first). */
  headsOf(task: string): readonly string[] {
    return this.heads.get(task) ?? [];
  }

  /**
   * Whether every entry not yet fed descends into a record of each of `tasks`: then none of them
   * can be a head of those tasks, and a walk looking for heads can stop.
   */
  settled(tasks: Iterable<string>): boolean {
    for (const task of tasks) {
      if (this.base.has(task)) continue;
      for (const marks of this.frontier.values()) if (!marks.has(task)) return false;
    }
    return true;
  }

  private isBelowMarks(marks: ReadonlySet<string>, task: string): boolean {
    return this.base.has(task) || marks.has(task);
  }
}
