/**
 * `record k/N` for `verify --rerun`: a re-run of hundreds of records takes minutes, and a
 * person (or a CI log, with `--progress`) wants to know how far it is and how long is left.
 * The estimate is the time per record so far times the records left: with `--jobs N` the
 * records finish N at a time, and the elapsed time already says so.
 */
export function recordProgress(
  onProgress: (message: string) => void,
  now: () => number = Date.now,
): (done: number, total: number, id: string) => void {
  const started = now();
  return (done, total, id) => {
    const elapsed = now() - started;
    const left = done >= total ? 0 : (elapsed / done) * (total - done);
    onProgress(
      `record ${done}/${total} checked (${id.slice(0, 19)})` +
        (done >= total ? '' : `, about ${formatDuration(left)} left`),
    );
  };
}

/** `4 s`, `2 min 05 s`, `1 h 03 min`: an estimate's precision, not a stopwatch's. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
