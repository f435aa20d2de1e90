/**
 * Ctrl-C while a witness runs. A witness leads its own process group (so that a timeout can
 * end all of it), which also means the terminal's SIGINT never reaches it: if `ledger` simply
 * died, the witness would run on unseen, and a re-run's throw-away checkout would stay behind.
 * While anything is registered here, SIGINT, SIGTERM and SIGHUP to `ledger` first run the
 * registered clean-ups (newest first: end the process groups, then remove the directories they
 * were writing into), then end `ledger` with the conventional status 128 + signal number.
 */
import { constants } from 'node:os';

/** Synchronous: it runs inside a signal handler, right before the process exits. */
export type Cleanup = () => void;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type HandledSignal = (typeof SIGNALS)[number];

const cleanups: Cleanup[] = [];
let installed = false;

function onSignal(signal: HandledSignal): void {
  const pending = cleanups.splice(0).reverse();
  for (const cleanup of pending) {
    try {
      cleanup();
    } catch {
      // the next clean-up still runs: a group that is already gone must not keep a directory
    }
  }
  uninstall();
  process.stderr.write(
    `ledger: interrupted (${signal}); the running witness was ended and its throw-away files removed\n`,
  );
  process.exit(128 + (constants.signals[signal] ?? 0));
}

const handlers = new Map<HandledSignal, () => void>(
  SIGNALS.map((signal) => [signal, () => onSignal(signal)]),
);

function install(): void {
  if (installed) return;
  installed = true;
  for (const [signal, handler] of handlers) process.on(signal, handler);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const [signal, handler] of handlers) process.off(signal, handler);
}

/**
 * Runs `cleanup` if `ledger` is interrupted before the returned `release` is called. The
 * signal handlers exist only while something is registered, so a command that runs no witness
 * keeps the default behaviour.
 */
export function onInterrupt(cleanup: Cleanup): () => void {
  cleanups.push(cleanup);
  install();
  return () => {
    const at = cleanups.indexOf(cleanup);
    if (at >= 0) cleanups.splice(at, 1);
    if (cleanups.length === 0) uninstall();
  };
}
