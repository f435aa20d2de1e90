/**
 * A collaborator who can push to the shared remote rewires the log so that the pushed ledger is
 * a superset of the victim's tree (a fast-forward) but no longer one chain: an entry that
 * skips the old tip, or a tip commit that names an old entry. `sync` must refuse it (exit 3,
 * the local ref unchanged) and the victim's ledger must keep verifying.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId } from '../../src/canonical/index.js';
import { ledgerCommit } from '../../src/ledger/append.js';
import { commitMessage, fanout, LOG_DIR, LOG_REF } from '../../src/ledger/layout.js';
import { readAllEntries, readLedgerIndex, readTip } from '../../src/ledger/read.js';
import { insertPath } from '../../src/ledger/trees.js';
import { LOG_ENTRY_SCHEMA, type LogEntry } from '../../src/model/record.js';
import { encodeCommit, encodeTree, MODE, parseTree } from '../../src/store/objects.js';
import { GitStore } from '../../src/store/git/store.js';
import { openRepo } from '../../src/store/git/repo.js';
import { cleanup, ledgerTip, remoteWithClones } from '../helpers/git.js';
// sync and verify run in this process, routed as bin/run.js routes them
// (test/helpers/cli-in-process.ts): what is tested is what they decide about the rewired log.
import { asUser, cliBinInProcess as cli, makeUser, record, safeGit, type User } from './helpers.js';

afterEach(cleanup);

/** Victim and attacker clones of one remote, both holding the same three-record ledger. */
async function sharedLedger(user: User) {
  const { clones } = remoteWithClones(2);
  const [victim, attacker] = clones as [string, string];
  for (let i = 0; i < 3; i++) await record(user, victim, { status: 'success', summary: `r${i}` });
  expect((await cli(user, victim, ['sync'])).code).toBe(0);
  expect((await cli(user, attacker, ['sync'])).code).toBe(0);
  expect((await cli(user, victim, ['verify'])).code).toBe(0);
  return { victim, attacker };
}

/**
 * Rewrites the attacker's newest ledger commit: `edit` gets the ledger's entries and returns
 * the log entry the new tip commit names and the tree to use (with entries added or removed).
 * The new commit's parent is the current tip, so the push is a fast-forward.
 */
async function rewriteTip(
  dir: string,
  edit: (ctx: {
    store: GitStore;
    tree: string;
    entries: Map<string, LogEntry>;
    tipEntry: string;
  }) => Promise<{ tree: string; entryId: string }>,
): Promise<void> {
  const store = new GitStore(await openRepo(dir));
  try {
    const tip = (await store.readRef(LOG_REF))!;
    const head = await readTip(store, tip);
    const entries = await readAllEntries(store, await readLedgerIndex(store));
    const { tree, entryId } = await edit({
      store,
      tree: head.tree,
      entries,
      tipEntry: head.entryId,
    });
    const commit = await store.write(
      'commit',
      encodeCommit({
        ...ledgerCommit(tree, tip, entryId, null, new Date()),
        message: commitMessage(entryId, null),
      }),
    );
    safeGit(dir, 'update-ref', LOG_REF, commit, tip);
  } finally {
    store.close();
  }
}

async function removeLeaf(store: GitStore, root: string, path: string[]): Promise<string> {
  const [head, ...rest] = path;
  const entries = parseTree((await store.read(root))!.bytes);
  const at = entries.findIndex((e) => e.name === head);
  if (rest.length === 0) entries.splice(at, 1);
  else entries[at] = { ...entries[at]!, oid: await removeLeaf(store, entries[at]!.oid, rest) };
  return store.write('tree', encodeTree(entries));
}

function oldest(entries: Map<string, LogEntry>): string {
  return [...entries].find(([, e]) => e.prev.length === 0)![0];
}

async function expectRefused(user: User, victim: string): Promise<void> {
  const before = ledgerTip(victim);
  const seenBefore = safeGit(victim, 'for-each-ref', 'refs/ledger-synced/origin/');
  const r = await cli(user, victim, ['sync']);
  expect(r.code, r.stdout).toBe(3);
  expect(r.json.error.code).toBe('INTEGRITY');
  expect(r.json.error.message).toMatch(/old tip|re-parent|does not descend/);
  expect(ledgerTip(victim)).toBe(before);
  // nothing seen there is remembered: the refused ref's marker did not move
  expect(safeGit(victim, 'for-each-ref', 'refs/ledger-synced/origin/')).toBe(seenBefore);
  const verified = await cli(user, victim, ['verify']);
  expect(verified.code, verified.stdout).toBe(0);
  // and again: a second sync still refuses, it never adopts on a retry
  expect((await cli(user, victim, ['sync'])).code).toBe(3);
  expect(ledgerTip(victim)).toBe(before);
}

describe('adversarial: sync adopts only one unbroken chain', () => {
  it('a pushed tip entry re-parented onto the oldest entry (a superset tree, a fast-forward) — refused by the old-tip descent check (sync exit 3, local ref unchanged, verify still 0)', async () => {
    const user = makeUser();
    const { victim, attacker } = await sharedLedger(user);
    // The attacker records r3 normally, then re-parents its log entry onto the first entry:
    // the tree keeps every old entry and record, so the remote moves by fast-forward.
    await record(user, attacker, { status: 'success', summary: 'r3 (re-parented)' });
    await rewriteTip(attacker, async ({ store, tree, entries, tipEntry }) => {
      const normal = entries.get(tipEntry)!;
      const first = oldest(entries);
      const forged: LogEntry = {
        schema: LOG_ENTRY_SCHEMA,
        record: normal.record,
        prev: [first],
        height: entries.get(first)!.height + 1,
      };
      const bytes = encodeCanonical(forged);
      const entryId = toRecordId(bytes);
      let root = await removeLeaf(store, tree, [LOG_DIR, ...fanout(tipEntry)]);
      root = (await insertPath(store, root, [LOG_DIR, ...fanout(entryId)], {
        mode: MODE.file,
        oid: await store.write('blob', bytes),
      }))!;
      return { tree: root, entryId };
    });
    safeGit(attacker, 'push', '-q', 'origin', `${LOG_REF}:${LOG_REF}`);
    // What the victim would adopt does not verify on its own (the attack is real):
    const pushed = await cli(user, attacker, ['verify']);
    expect(pushed.code).toBe(3);
    await expectRefused(user, victim);
  });

  it('a pushed commit that adds only a leaf but names the oldest log entry as its tip — refused by the same check (sync exit 3, local ref unchanged)', async () => {
    const user = makeUser();
    const { victim, attacker } = await sharedLedger(user);
    // An attestation leaf makes the tree a strict superset; the commit names the first entry.
    await asUser(user, async () => {
      const { verifyRepository } = await import('../../src/app/verify.js');
      await verifyRepository({ cwd: attacker, record: true, sign: false });
    });
    await rewriteTip(attacker, async ({ tree, entries }) => ({
      tree,
      entryId: oldest(entries),
    }));
    safeGit(attacker, 'push', '-q', 'origin', `${LOG_REF}:${LOG_REF}`);
    expect((await cli(user, attacker, ['verify'])).code).toBe(3);
    await expectRefused(user, victim);
  });
});
