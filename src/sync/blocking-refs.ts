/**
 * Names on a remote that keep git from creating a ledger ref there (red team, round ten). git
 * cannot hold a ref and refs below its name at once (`refs/ledger/writers` and
 * `refs/ledger/writers/<id>`: a directory/file conflict), so one plain `git push` of such a name,
 * by anyone with push access, refused every clone's push for good (`refs/ledger/writers`, once a
 * checkpoint had retired every writer ref), or one writer's (`refs/ledger/writers/<its id>/x`),
 * or every checkpoint (`refs/ledger/checkpoint/x`). Sync took git's refusal for a lost lease,
 * retried for 60 s and blamed a clone reusing its writer id; the CI gate passed without the
 * records nobody could publish. Now such a name seen in a fetch is refused as a writer ref at
 * something that is no ledger commit is (INTEGRITY, exit 3, for every clone and the gate), and a
 * push git refuses for a name is reported at once, naming the ref in the way.
 */
import { CHECKPOINT_REF, LOG_REF, WRITER_ID, WRITERS_PREFIX, writerRef } from '../ledger/layout.js';
import { LedgerError } from '../model/errors.js';
import { shellQuote } from '../model/shell-word.js';

/** The names of the ledger refs below `refs/ledger/`: `log`, `checkpoint`, `writers`. */
const LEDGER = 'refs/ledger/';
const LOG = LOG_REF.slice(LEDGER.length);
const CHECKPOINT = CHECKPOINT_REF.slice(LEDGER.length);
const WRITERS = WRITERS_PREFIX.slice(LEDGER.length, -1);

/**
 * The ledger ref that `name` (below `refs/ledger/`, as a remote holds it) keeps git from
 * creating, or undefined when it blocks none. A name below something that is not a writer id
 * (`writers/not-a-writer/x`) blocks nothing ledger writes: it stays one more ignored name.
 */
export function blockedBy(name: string): string | undefined {
  if (name === WRITERS) return `${WRITERS_PREFIX}*`;
  const [top, below, ...rest] = name.split('/');
  if (below === undefined) return undefined;
  if (top === LOG) return LOG_REF;
  if (top === CHECKPOINT) return CHECKPOINT_REF;
  if (top === WRITERS && rest.length > 0 && WRITER_ID.test(below)) return writerRef(below);
  return undefined;
}

/** How many blocking refs an error names one by one: the rest are counted. */
const NAMED = 10;

/**
 * The names under `refs/ledger/` a fetch brought that are no ledger ref, before anything is read:
 * those that block a ledger ref (`blocking`, as the remote names them) refused, INTEGRITY naming
 * each and the push that deletes it; the others (`ignored`) said in a notice.
 */
export function checkOtherNames(
  remote: string,
  names: { ignored: number; blocking: readonly string[] },
  notices: Set<string>,
): void {
  refuseBlockingRefs(remote, names.blocking);
  if (names.ignored > 0)
    notices.add(
      `${names.ignored} ref(s) under refs/ledger/ on ${remote} are neither refs/ledger/log, refs/ledger/checkpoint nor a writer ref (refs/ledger/writers/<32 hex>); ignored`,
    );
}

function refuseBlockingRefs(remote: string, refs: readonly string[]): void {
  if (refs.length === 0) return;
  const sorted = [...refs].sort();
  const [first] = sorted as [string, ...string[]];
  const named = sorted.slice(0, NAMED);
  throw new LedgerError(
    'INTEGRITY',
    `${remote}'s ${first} blocks ${blockedText(first)}${sorted.length > 1 ? ` (and ${sorted.length - 1} more ref(s) block ledger refs)` : ''}: git cannot hold a ref and refs below its name at once, so no clone can publish there; nothing was adopted`,
    {
      problems: named.map((ref) => ({
        path: ref,
        message: `blocks ${blockedText(ref)}`,
        expected: 'no ref at or below the name of a ledger ref',
        got: 'a ref no version of ledger writes',
      })),
      hint:
        `Your ledger is unchanged. No version of ledger writes ${sorted.length === 1 ? 'that name' : 'those names'}: ` +
        `delete ${sorted.length === 1 ? 'it' : 'them'} (git push ${remote} --delete ${named.map(shellQuote).join(' ')}), then run ledger sync again.` +
        (sorted.length > NAMED
          ? ` List the others with git ls-remote ${remote} 'refs/ledger/*'.`
          : ''),
    },
  );
}

/**
 * A push the remote refused because a ref of another name is in the way: thrown at once, never
 * retried (nothing but its deletion lets the push through). `--push-only` catches it and runs a
 * full round, whose fetch sees the name and refuses it as every sync does.
 */
export class BlockedPush extends LedgerError {
  readonly ref: string;
  /** The ref in the way, or undefined when git named only a directory of refs below `ref`. */
  readonly blocker: string | undefined;

  constructor(remote: string, ref: string, blocker: string | undefined, said: string) {
    super(
      'REMOTE',
      `${remote} refused ${ref}: ${blocker ?? `a ref below ${ref}/`} is in the way (git cannot hold a ref and refs below its name at once): ${said}`,
      {
        hint:
          `What arrived from ${remote} was checked and adopted here; ${ref} was not pushed. No version of ledger writes ${blocker ?? `refs below ${ref}/`}: ` +
          (blocker === undefined
            ? `list them with git ls-remote ${remote} '${ref}/*' and delete each (git push ${remote} --delete REF)`
            : `delete it (git push ${remote} --delete ${shellQuote(blocker)})`) +
          ', then run ledger sync again.',
      },
    );
    this.ref = ref;
    this.blocker = blocker;
  }
}

/** git's words for a ref another ref's name blocks: the ref in the way, else a directory of refs. */
const EXISTS = /'(refs\/[^']+)' exists; cannot create '(refs\/[^']+)'/;
const DIRECTORY = /blocking reference '(refs\/[^']+)'/;

/** The refusal of a push of `ref` when git's output (`text`) says another ref's name blocks it. */
export function blockedPush(
  text: string,
  remote: string,
  ref: string,
  said: string,
): BlockedPush | undefined {
  const exists = EXISTS.exec(text);
  if (exists) return new BlockedPush(remote, exists[2]!, exists[1], said);
  const directory = DIRECTORY.exec(text);
  if (directory) return new BlockedPush(remote, directory[1] ?? ref, undefined, said);
  return undefined;
}

function blockedText(ref: string): string {
  const blocked = blockedBy(ref.slice(LEDGER.length));
  return blocked === `${WRITERS_PREFIX}*` ? `every writer ref (${blocked})` : `${blocked}`;
}
