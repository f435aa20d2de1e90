/**
 * Why a push with a lease failed, read from git's words: a race lost (retried from the fetch), or
 * a refusal (reported at once). Only a race is worth another round; sync took every refusal that
 * mentioned a ref lock for a moved ref, so a ref of another name in the way (blocking-refs.ts)
 * cost 60 s of rounds and blamed a clone reusing this writer id (red team, round ten).
 */
import { CHECKPOINT_REF, LOG_REF } from '../ledger/layout.js';
import { LedgerError } from '../model/errors.js';
import { blockedPush } from './blocking-refs.js';

/**
 * `upToDate`: the remote already held that commit there (git sent nothing, whatever the lease).
 * Not pushed: a race lost, `moved` when the ref is not where the lease said (else a lock held on
 * the remote: lostRace).
 */
export type PushOutcome =
  { pushed: true; upToDate: boolean } | { pushed: false; moved: boolean; detail: string };

/**
 * The ref is not at the tip the lease named: git saw it before sending (`stale info`, `fetch
 * first`, `non-fast-forward`), or the remote's own compare-and-swap did (`is at X but expected
 * Y`, created meanwhile: `reference already exists`; deleted meanwhile: `cannot lock ref …:
 * unable to resolve reference`, which two checkpoint publishers meet when one retires the
 * writer ref the other pushes — read as a refusal, it failed that sync at once).
 */
const MOVED =
  /stale info|fetch first|non-fast-forward|incorrect old value|but expected|reference already exists|unable to resolve reference/i;

/** The remote could not take the ref's lock: another push there held it, or left its lock. */
const LOCK_HELD = /Unable to create '[^']*\.lock'|failed to lock/i;

/**
 * A race lost: `moved` when the ref really is elsewhere than the lease said, else a lock held.
 * Asked after `refusedPush`: git words a ref in the way as a lock it cannot take, too.
 */
export function lostRace(text: string): { moved: boolean } | undefined {
  if (MOVED.test(text)) return { moved: true };
  if (LOCK_HELD.test(text)) return { moved: false };
  return undefined;
}

/**
 * The refusal of a push of `ref` that no further round gets through, or undefined: a ref of
 * another name in the way, or the remote's own rules (a hook, a protected ref, a full disk).
 * `said` is git's last words, for the message.
 */
export function refusedPush(
  text: string,
  remote: string,
  ref: string,
  said: string,
): LedgerError | undefined {
  const blocked = blockedPush(text, remote, ref, said);
  if (blocked !== undefined) return blocked;
  if (!/\[remote rejected\]/.test(text) || lostRace(text) !== undefined) return undefined;
  return new LedgerError('REMOTE', `${remote} refused the update of ${ref}: ${said}`, {
    hint: `What arrived from ${remote} was checked and adopted here; ${ref} was not pushed. ${remote}'s own rules refused it (a hook, a protected ref, a full disk there): ask whoever runs ${remote}, then run ledger sync again.`,
  });
}

/** What the races lost so far said: whether the ref ever really moved, and git's last words. */
export interface LostRaces {
  moved: boolean;
  detail: string;
}

/**
 * Sync's (and `--checkpoint`'s) last word after `rounds` races lost in `ms`. The hint blames
 * other writers of `ref` only when the ref really moved; a ref that never did was held locked
 * on the remote.
 */
export function gaveUp(
  remote: string,
  ref: string,
  rounds: number,
  ms: number,
  lost: LostRaces,
): LedgerError {
  const adopted = 'What arrived was checked and adopted here.';
  return new LedgerError(
    'REMOTE',
    `${remote}'s ${ref} ${lost.moved ? 'kept moving' : `stayed locked (${lost.detail})`}: gave up after ${rounds} fetch-and-push rounds in ${Math.round(ms / 1000)} s`,
    {
      hint: !lost.moved
        ? `${adopted} ${ref} did not move on ${remote}, but no push could take its lock: another push there holds it, or a git process killed there left its lock file (the .lock git names). Run ledger sync again later; if it fails the same way, remove that file on ${remote}.`
        : ref === LOG_REF
          ? `${adopted} Run ledger sync again when the other writers are done.`
          : ref === CHECKPOINT_REF
            ? 'Another clone is publishing checkpoints; its checkpoint serves as well. Run ledger sync --checkpoint again later if refs remain.'
            : `Only this clone should write ${ref}: another sync here, or a clone reusing this writer id, keeps pushing it. Run ledger sync again when it is done.`,
    },
  );
}
