/**
 * Per-ref work run concurrently: each ref's reads are a few round trips through the one
 * `git cat-file --batch`, and awaiting them one ref after the other left both the reader and
 * git idle (a first sync of 1,000 writer refs). Errors stay deterministic: when several items
 * fail, the one earliest in the given order is thrown, as a loop would have.
 */

/** At most this many items in flight: enough to keep the reader's pipe full. */
const IN_FLIGHT = 64;

export async function mapInOrder<T, R>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<R>,
  limit = IN_FLIGHT,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const errors = new Map<number, unknown>();
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      if (errors.size > 0 && [...errors.keys()].some((e) => e < i)) continue;
      try {
        results[i] = await work(items[i]!, i);
      } catch (error) {
        errors.set(i, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (errors.size > 0) throw errors.get(Math.min(...errors.keys()));
  return results;
}
