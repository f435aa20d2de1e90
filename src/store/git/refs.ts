/**
 * Compare-and-swap ref updates through `git update-ref --stdin`, which takes git's own
 * `<ref>.lock` (create-exclusive, then rename), so a concurrent `ledger record`, `git
 * update-ref` or `git fetch` can never be overwritten unseen. isomorphic-git's writeRef takes
 * no lock and checks no old value, which is why refs are not written through it.
 */
import { LedgerError } from '../../model/errors.js';
import { killPoint } from '../../model/faults.js';
import { runGit } from './exec.js';
import type { ConfigGuard } from './guard.js';

const ZERO = '0'.repeat(40);

/** How long to wait out a lock held by another live writer before reporting it. */
const DEFAULT_LOCK_WAIT_MS = 20_000;

/** LEDGER_LOCK_WAIT_MS shortens the wait in tests of a stale lock; the default holds otherwise. */
export function lockWaitMs(): number {
  const raw = process.env['LEDGER_LOCK_WAIT_MS'];
  const given = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
  return Number.isFinite(given) && given >= 0 ? given : DEFAULT_LOCK_WAIT_MS;
}

export async function updateRefCas(
  cwd: string,
  ref: string,
  next: string,
  expected: string | undefined,
  lockDir: string,
  guard?: ConfigGuard,
): Promise<boolean> {
  const started = Date.now();
  const waitMs = lockWaitMs();
  for (let attempt = 0; ; attempt++) {
    killPoint('before-ref-update');
    const result = await runGit(['update-ref', '--stdin', '-z'], {
      cwd,
      ...(guard === undefined ? {} : { guard }),
      input: `update ${ref}\0${next}\0${expected ?? ZERO}\0`,
    });
    if (result.code === 0) {
      killPoint('after-ref-update');
      return true;
    }
    const message = result.stderr;
    if (/File exists|Unable to create .*\.lock/i.test(message)) {
      if (Date.now() - started < waitMs) {
        await contentionPause(attempt);
        continue;
      }
      throw new LedgerError('LOCKED', `the ref ${ref} has been locked for ${waitMs / 1000} s`, {
        hint:
          `Another git or ledger process holds ${lockDir}/${ref}.lock. If no such process is ` +
          `running (it was killed), remove that file and retry.`,
      });
    }
    if (
      /is at .* but expected|reference already exists|unable to resolve reference|cannot lock ref/i.test(
        message,
      )
    ) {
      return false;
    }
    throw new LedgerError('GIT_FAILED', `git update-ref ${ref} failed: ${message.trim()}`, {
      hint: 'git refused to move the ref; the ledger was not changed. Fix what git says, then retry.',
    });
  }
}

/**
 * A short randomised wait before retrying after another writer held a lock: 2.5–7.5 ms at
 * first, doubling up to 100–300 ms, so that writers that collided do not collide again.
 */
export function contentionPause(attempt: number): Promise<void> {
  const ms = Math.min(200, 5 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random());
  return new Promise((resolve) => setTimeout(resolve, ms));
}
