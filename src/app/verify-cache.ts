/**
 * The verified-state cache: which ledger tip last verified with exit 0 here, under which policy,
 * `ledger` version and verdict-changing options. `verify` then checks only what is new since
 * that tip (`src/verify/since.ts`). It is a speed-up and nothing else: an entry that is
 * missing, unreadable, of another schema, for another key or without a valid MAC is a miss,
 * and a miss means "verify everything" — never a verdict.
 *
 * Where it lives and why (see docs/design.md §5 and docs/threat-model.md): in this clone's
 * local state directory, outside the repository (`$XDG_STATE_HOME/ledger/ledgers/<ledger>/
 * clones/<clone>/verified.json`), because an agent can write anything in `.git/` and a cache
 * there could say a forged tip verified. Each entry carries an HMAC-SHA256 under a per-user key
 * (`$XDG_STATE_HOME/ledger/verify-cache.key`, 0600, never in a repository, hidden from re-run
 * witnesses), bound to the clone's directory: an entry copied from another clone, machine or
 * user, or written by anything that cannot read the key, does not verify and is ignored. It is
 * never pushed: nothing under refs/ or .git/ holds it.
 *
 * One fact a verdict depends on lies outside the ledger and can change after a tip verified:
 * whether each record's base commit is still in the repository (a rebase and `git gc` can prune
 * it, and then the record is `unverifiable`). An entry therefore lists the base commits of every
 * record verified at its tip, under the MAC, and `verify` re-checks that they are all present
 * before it uses the entry (a batch of small object reads, not a re-verify).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stateRoot } from './local-state.js';

// v2: entries list the base commits of the records verified at their tip (v1 entries are a miss).
const SCHEMA = 'ledger.verified/v2';
const FILE = 'verified.json';
const KEY_FILE = 'verify-cache.key';
/** One entry per key (policy × version × options); old keys are dropped past this many. */
const MAX_KEYS = 16;
const OID = /^[0-9a-f]{40}$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** Everything that can change a verdict of the same ledger, besides the ledger itself. */
export interface CacheKeyInput {
  /** sha256 of the canonical policy in force (re-run and format options included). */
  policyDigest: string;
  ledgerVersion: string;
  strict: boolean;
  rerun: boolean;
  fromAttestation: boolean;
}

export function cacheKey(input: CacheKeyInput): string {
  const canonical = JSON.stringify([
    SCHEMA,
    input.policyDigest,
    input.ledgerVersion,
    input.strict,
    input.rerun,
    input.fromAttestation,
    'scope:all',
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

interface Entry {
  commit: string;
  /** Distinct base commits of every record the ledger held at `commit`, sorted. */
  bases: string[];
  at: string;
  mac: string;
}

export type CacheLookup =
  { hit: true; commit: string; bases: string[] } | { hit: false; reason: string };

/** The tip that verified under `key` in this clone, or why there is none to use. */
export async function readVerifiedTip(cloneDir: string, key: string): Promise<CacheLookup> {
  const entries = await readEntries(cloneDir);
  if (entries === undefined) return { hit: false, reason: 'no verified tip is cached here' };
  if (entries === 'unreadable')
    return { hit: false, reason: 'the verified-state cache is unreadable (ignored)' };
  const entry = entries.get(key);
  if (entry === undefined)
    return {
      hit: false,
      reason: 'no tip verified under this policy, ledger version and options is cached',
    };
  const secret = await readSecret(false);
  if (
    secret === undefined ||
    !macMatches(entry.mac, mac(secret, cloneDir, key, entry.commit, entry.bases))
  )
    return { hit: false, reason: 'the cached entry does not carry this user’s MAC (ignored)' };
  return { hit: true, commit: entry.commit, bases: entry.bases };
}

/**
 * Notes `commit` as verified under `key`, with the base commits of the records it holds.
 * Best effort: a cache that cannot be written is no error.
 */
export async function writeVerifiedTip(
  cloneDir: string,
  key: string,
  commit: string,
  baseCommits: Iterable<string>,
) {
  if (!OID.test(commit)) return;
  const bases = [...new Set(baseCommits)].sort();
  if (!bases.every((b) => OID.test(b))) return;
  try {
    const secret = await readSecret(true);
    if (secret === undefined) return;
    const found = await readEntries(cloneDir);
    const entries = found instanceof Map ? found : new Map<string, Entry>();
    entries.delete(key);
    entries.set(key, {
      commit,
      bases,
      at: new Date().toISOString(),
      mac: mac(secret, cloneDir, key, commit, bases),
    });
    const kept = [...entries].slice(-MAX_KEYS);
    const text = `${JSON.stringify({ schema: SCHEMA, entries: Object.fromEntries(kept) })}\n`;
    await mkdir(cloneDir, { recursive: true, mode: 0o700 });
    const temp = join(cloneDir, `${FILE}.${process.pid}.${Date.now()}.tmp`);
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, join(cloneDir, FILE));
  } catch {
    // The cache is only a speed-up: the verdict stands without it.
  }
}

/** The cache file's path, for messages and tests. */
export function verifiedTipFile(cloneDir: string): string {
  return join(cloneDir, FILE);
}

async function readEntries(
  cloneDir: string,
): Promise<Map<string, Entry> | 'unreadable' | undefined> {
  let text: string;
  try {
    text = await readFile(join(cloneDir, FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as { schema?: unknown; entries?: unknown };
    if (value.schema !== SCHEMA || typeof value.entries !== 'object' || value.entries === null)
      return 'unreadable';
    const out = new Map<string, Entry>();
    for (const [key, raw] of Object.entries(value.entries as Record<string, unknown>)) {
      const e = raw as Partial<Entry> | null;
      if (
        HEX64.test(key) &&
        e !== null &&
        typeof e === 'object' &&
        typeof e.commit === 'string' &&
        OID.test(e.commit) &&
        Array.isArray(e.bases) &&
        e.bases.every((b) => typeof b === 'string' && OID.test(b)) &&
        typeof e.mac === 'string' &&
        HEX64.test(e.mac) &&
        typeof e.at === 'string'
      )
        out.set(key, { commit: e.commit, bases: e.bases, at: e.at, mac: e.mac });
    }
    return out;
  } catch {
    return 'unreadable';
  }
}

function mac(
  secret: Buffer,
  cloneDir: string,
  key: string,
  commit: string,
  bases: readonly string[],
): string {
  return createHmac('sha256', secret)
    .update(`${SCHEMA}\0${cloneDir}\0${key}\0${commit}\0${bases.join(',')}`)
    .digest('hex');
}

function macMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'hex');
  const b = Buffer.from(expected, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The per-user MAC key; made on first write (create-exclusive, so two writers agree). */
async function readSecret(create: boolean): Promise<Buffer | undefined> {
  const file = join(stateRoot(), KEY_FILE);
  const read = async () => {
    const text = (await readFile(file, 'utf8')).trim();
    return HEX64.test(text) ? Buffer.from(text, 'hex') : undefined;
  };
  try {
    return await read();
  } catch {
    if (!create) return undefined;
  }
  await mkdir(stateRoot(), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch {
    // Another command made it first: use theirs.
  }
  return read().catch(() => undefined);
}
