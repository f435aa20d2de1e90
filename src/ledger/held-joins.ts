/**
 * Held join entries that lose nothing when they are gone (red team, round eighteen). A sync
 * that joins concurrent tips and does not push (`sync --no-push`, the CI gate's) writes a join
 * entry `{record: null, prev}` only its own clone ever holds; a runner that keeps HOME and
 * re-clones its workspace noted it as held, and every later job's clone lacked it: sync and
 * verify said ROLLBACK (exit 3) for ever. A join names no record: when the ledger holds every
 * entry it joined, nothing it held is lost with it.
 *
 * So a held join the ledger lacks counts as held when each of its parents is in the ledger, or is
 * itself such a join (a second sync in the same job joins the first), and the tip reaches them:
 * its parents stand for it (`mustReach`). A tip moved back below them, or a record built on the
 * join with the join then taken out from under it (its parents are cut off from the tip), is
 * still a rollback. A stand-in this clone noted as held itself needs no walk: the memory's
 * newest entry stands for it, as for every entry noted before it (app/held-guard.ts); so sync
 * notes the stand-ins it walked to before its new tip, and a runner's tenth job does not walk
 * down to its first job's join. Only what the memory
 * noted counts, and only a line whose height and parents hash to the join's id with `record:
 * null`: an entry that carries a record is never excused, and nothing in the repository can make
 * one look like a join.
 */
import { encodeCanonical, toRecordId } from '../canonical/index.js';
import type { LogEntry } from '../model/record.js';
import { LOG_ENTRY_SCHEMA } from '../model/vocabulary.js';

/** The joins a memory noted: entry id → the rest of its line ("<height> <prev> <prev>…"). */
export type NotedJoins = ReadonlyMap<string, string>;

/** The memory line of a join entry (`joinOf` reads it back); undefined for any other entry. */
export function joinLine(id: string, entry: LogEntry): string | undefined {
  if (entry.record !== null || entry.prev.length < 2) return undefined;
  return `${id} ${entry.height} ${entry.prev.join(' ')}`;
}

/** A memory line split into the join's id and the rest; undefined when it is not one. */
export function splitJoinLine(line: string): [string, string] | undefined {
  const space = line.indexOf(' ');
  return space < 0 ? undefined : [line.slice(0, space), line.slice(space + 1)];
}

/**
 * The parents of the join `id` as the memory noted it; undefined when the line's height and
 * parents do not make the join entry whose bytes hash to `id`.
 */
export function joinOf(id: string, rest: string): string[] | undefined {
  const [height, ...prev] = rest.split(' ');
  const entry: LogEntry = {
    schema: LOG_ENTRY_SCHEMA,
    record: null,
    prev,
    height: Number(height),
  };
  if (prev.length < 2 || !Number.isSafeInteger(entry.height) || entry.height <= 0) return undefined;
  return toRecordId(encodeCanonical(entry)) === id ? prev : undefined;
}

export interface HeldJoins {
  /** The held entries still lost: no join, or a join one of whose parents the ledger lacks. */
  lost: string[];
  /** Each join that counts as held, with the entries in the ledger that stand for it. */
  standIns: ReadonlyMap<string, readonly string[]>;
}

/**
 * Which of the held entries the ledger lacks (`absent`, in the memory's order) are joins that
 * count as held. `missing`: which of some ids the ledger lacks, asked as the caller asks of the
 * held entries (by name, or as entries whose bytes hash to their ids).
 */
export async function excuseJoins(
  absent: readonly string[],
  joins: NotedJoins,
  missing: (ids: string[]) => Promise<string[]>,
): Promise<HeldJoins> {
  if (joins.size === 0 || absent.length === 0) return { lost: [...absent], standIns: new Map() };
  const gone = new Set(absent);
  const parentsOf = new Map<string, string[]>();
  const asked = new Set(absent);
  let frontier = absent.filter((id) => joins.has(id));
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) {
      const prev = joinOf(id, joins.get(id)!);
      if (prev === undefined) continue;
      parentsOf.set(id, prev);
      for (const p of prev) {
        if (asked.has(p)) continue;
        asked.add(p);
        next.push(p);
      }
    }
    const lacking = next.length === 0 ? [] : await missing(next);
    for (const id of lacking) gone.add(id);
    frontier = lacking.filter((id) => joins.has(id));
  }
  // A join's stand-ins: its parents in the ledger, and those of the joins among them that count.
  const memo = new Map<string, readonly string[] | null>();
  const standInsOf = (id: string): readonly string[] | null => {
    if (memo.has(id)) return memo.get(id)!;
    memo.set(id, null); // an entry's id hashes its parents: no cycle, but never loop on one
    const prev = parentsOf.get(id);
    if (prev === undefined) return null;
    const stands = new Set<string>();
    for (const p of prev) {
      if (!gone.has(p)) stands.add(p);
      else {
        const below = standInsOf(p);
        if (below === null) return null;
        for (const s of below) stands.add(s);
      }
    }
    memo.set(id, [...stands]);
    return memo.get(id)!;
  };
  const standIns = new Map<string, readonly string[]>();
  const lost: string[] = [];
  for (const id of absent) {
    const stands = parentsOf.has(id) ? standInsOf(id) : null;
    if (stands === null) lost.push(id);
    else standIns.set(id, stands);
  }
  return { lost, standIns };
}

/**
 * The entries the tip must reach: each memory's newest, or what stands for it when it is a join
 * the ledger lacks, and each stand-in of such a join that this clone never held itself.
 */
export function mustReach(
  newest: readonly string[],
  held: ReadonlySet<string>,
  standIns: ReadonlyMap<string, readonly string[]>,
): string[] {
  const wanted = new Set(newest.flatMap((id) => standIns.get(id) ?? [id]));
  for (const id of unheldStandIns(held, standIns)) wanted.add(id);
  return [...wanted];
}

/** The stand-ins this clone never held: noted before its next entry, they need no walk again. */
export function unheldStandIns(
  held: ReadonlySet<string>,
  standIns: ReadonlyMap<string, readonly string[]>,
): string[] {
  const unheld = new Set<string>();
  for (const stands of standIns.values())
    for (const id of stands) if (!held.has(id)) unheld.add(id);
  return [...unheld];
}
