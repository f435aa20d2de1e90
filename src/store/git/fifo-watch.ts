/**
 * git opens the files it reads with a blocking open: a FIFO planted where it looks makes it
 * wait for a writer forever. The agent can plant one in the work tree (every `.gitignore` and
 * `.gitattributes` `git ls-files` meets) and anywhere in `.git/` (every loose ref `git fetch`
 * and `git push` read to negotiate, a reflog `update-ref` appends to, …), so every git ledger
 * runs is watched for that wait, and ended.
 *
 * Linux says what a process waits on (`/proc/<pid>/wchan`): `wait_for_partner` is the kernel
 * waiting in a FIFO's open for the other end, for reading or for writing. That is a state, not
 * a timeout, so a slow honest run is never cut short. git does much of its work in children
 * (`fetch` runs `index-pack` and `rev-list`, `push` runs `pack-objects`; a remote on this
 * machine is served by `upload-pack` or `receive-pack` here), so the whole tree of processes
 * is watched. Elsewhere /proc is missing and the watch does nothing.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * When the wait states are read: 100 ms after the start, then at twice the last gap, up to
 * 1.6 s. A blocked open waits on, so this only sets the delay before it is ended; a fixed
 * 100 ms read a push slowed by 63 others publishing at once some hundred times over its tree.
 */
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 1600;

/** More processes than any git command starts: the walk stops there. */
const MAX_TREE = 64;

export interface FifoWait {
  /** The deepest directory the blocked process held open: where git was reading. */
  directory: string | undefined;
  /** Every process of the tree when the wait was seen, the watched one first. */
  processes: number[];
}

/**
 * Watches `pid` and its descendants; when one blocks opening a FIFO, `onBlocked` gets where it
 * was reading and the tree (the caller ends it). Returns the stop function (call it when the
 * child exits).
 */
export function watchFifoOpen(pid: number, onBlocked: (wait: FifoWait) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const poll = (gap: number) => {
    timer = setTimeout(() => {
      const processes = processTree(pid);
      if (processes === undefined) return; // no /proc, or the child is gone
      const blocked = processes.find(waitsForPartner);
      if (blocked === undefined) return poll(Math.min(gap * 2, MAX_POLL_MS));
      onBlocked({ directory: deepestOpenDirectory(blocked), processes });
    }, gap);
    timer.unref();
  };
  poll(FIRST_POLL_MS);
  return () => clearTimeout(timer);
}

/** How long git has to end on SIGTERM before it is killed. */
const TERM_GRACE_MS = 1000;

/**
 * Ends a tree that blocked. SIGTERM first: it interrupts the blocked open, and git's handler
 * then removes the lock files it holds (a ref's `.lock` left behind would refuse every later
 * update of that ref); SIGKILL after a grace for the watched process. Returns that timer, to
 * clear once the process has exited.
 */
function endTree(processes: readonly number[]): NodeJS.Timeout {
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  for (const pid of [...processes].reverse()) signal(pid, 'SIGTERM');
  const timer = setTimeout(() => signal(processes[0]!, 'SIGKILL'), TERM_GRACE_MS);
  timer.unref();
  return timer;
}

/**
 * The watch as every git ledger runs has it: when `pid`'s tree blocks, it is ended (`endTree`)
 * and `onBlocked` is told. Returns the stop function, which also drops the kill still pending:
 * call it once the process has closed.
 */
export function endOnFifoWait(
  pid: number | undefined,
  onBlocked: (wait: FifoWait) => void,
): () => void {
  if (pid === undefined) return () => undefined;
  let forceKill: NodeJS.Timeout | undefined;
  const stop = watchFifoOpen(pid, (wait) => {
    forceKill = endTree(wait.processes);
    onBlocked(wait);
  });
  return () => {
    stop();
    clearTimeout(forceKill);
  };
}

function waitsForPartner(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/wchan`, 'utf8').trim() === 'wait_for_partner';
  } catch {
    return false;
  }
}

/**
 * `pid` and its descendants, from each thread's `children` list (a kernel built without that
 * list gives `pid` alone); undefined when `pid` itself cannot be read.
 */
function processTree(pid: number): number[] | undefined {
  const tree = [pid];
  for (let i = 0; i < tree.length && tree.length < MAX_TREE; i++) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${tree[i]}/task`);
    } catch {
      if (i === 0) return undefined;
      continue; // it exited meanwhile
    }
    for (const task of tasks) {
      let children: string;
      try {
        children = readFileSync(`/proc/${tree[i]}/task/${task}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of children.split(' ')) if (child.trim() !== '') tree.push(Number(child));
    }
  }
  return tree.slice(0, MAX_TREE);
}

/** git reads a directory (an open fd) while it reads the files in it. */
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
