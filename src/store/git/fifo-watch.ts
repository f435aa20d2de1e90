/**
 * git opens every `.gitignore` and `.gitattributes` it meets (and the exclude and attributes
 * files the repository's config names) with a blocking open: a FIFO there makes `git ls-files`
 * — and `git add -A` — wait for a writer forever. The agent can plant one anywhere in the work
 * tree, so a command that lets git read the work tree watches for that wait and ends it.
 *
 * Linux says what a process waits on (`/proc/<pid>/wchan`): `wait_for_partner` is the kernel
 * waiting in a FIFO's open for the other end. That is a state, not a timeout, so a slow honest
 * run is never cut short. Elsewhere /proc is missing and the watch does nothing.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** How often the child's wait state is read; a blocked open waits on, so this only sets the delay. */
const POLL_MS = 100;

export interface FifoWait {
  /** The deepest directory the child held open when it blocked: where git was reading. */
  directory: string | undefined;
}

/**
 * Watches `pid`; when it blocks opening a FIFO, `onBlocked` gets where it was reading (the
 * caller kills it). Returns the stop function (call it when the child exits).
 */
export function watchFifoOpen(pid: number, onBlocked: (wait: FifoWait) => void): () => void {
  const timer = setInterval(() => {
    let state: string;
    try {
      state = readFileSync(`/proc/${pid}/wchan`, 'utf8');
    } catch {
      clearInterval(timer); // no /proc, or the child is gone
      return;
    }
    if (state.trim() !== 'wait_for_partner') return;
    clearInterval(timer);
    onBlocked({ directory: deepestOpenDirectory(pid) });
  }, POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** git reads a directory (an open fd) while it reads that directory's .gitignore. */
function deepestOpenDirectory(pid: number): string | undefined {
  let deepest: string | undefined;
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (!target.startsWith('/') || target.startsWith('/dev/')) continue;
      if (deepest === undefined || target.length > deepest.length) deepest = target;
    }
  } catch {
    return undefined;
  }
  return deepest;
}
