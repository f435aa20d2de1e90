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
 * An entry must never answer differently from `verify --full` (issue 16, item 6). What else a
 * verdict depends on, and how the entry covers it:
 *   - the policy (allowed_signers bytes and format gates included), the `ledger` version and
 *     every verdict-changing option (--strict, --rerun, --from-attestation, --timeout, the
 *     isolation a re-run gets): all in the key;
 *   - the clock: a key in allowed_signers is trusted only between its `valid-after` and
 *     `valid-before`, and a record dated after the verify time is flagged. An entry holds the
 *     window in which the verify time may fall — from the time it verified at to the next
 *     validity boundary of the allowed_signers file — and is a miss outside it;
 *   - the objects a verdict read: a base commit pruned by `git gc`, a blob deleted from the
 *     object database. An entry lists every object the verify read (and the ones it found
 *     absent) in a side file named by its sha256, which the MAC covers (`verify-cache-objects.ts`:
 *     the ids a pack holds are kept per pack), and `verify` proves them all still present
 *     (absent) before it uses the entry (`verify-open-cache.ts`).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomically } from '../paths/index.js';
import type { AllowedSigner } from '../sign/index.js';
import type { UsablePack } from '../store/git/pack-index.js';
import { stateRoot } from './policy/local-state.js';
import {
  dropUnusedObjectFiles,
  readObjectsList,
  writeObjectsList,
  type ObjectsList,
} from './verify-cache-objects.js';

// v2: entries list the base commits of the records verified at their tip. v3: the objects read
// (a side file), the verify-time window and the timeout and isolation in the key. v4: the side
// file keeps packed ids per pack (segments). v5: a text `verify --from-attestation` before v5
// cached a pass that an auditor's attested failure contradicts (red team, round eleven): such
// an entry must not answer for the tip again. Older: a miss.
const SCHEMA = 'ledger.verified/v5';
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
  /** `--timeout` in ms (undefined: the policy's, which its digest covers). */
  timeoutMs?: number;
  /** How re-runs are isolated here (bubblewrap, unshare, none): it decides what a witness can do. */
  isolation?: string;
}

export function cacheKey(input: CacheKeyInput): string {
  const canonical = JSON.stringify([
    SCHEMA,
    input.policyDigest,
    input.ledgerVersion,
    input.strict,
    input.rerun,
    input.fromAttestation,
    input.timeoutMs ?? null,
    input.isolation ?? null,
    'scope:all',
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

interface Entry {
  commit: string;
  /** Distinct base commits of every record the ledger held at `commit`, sorted. */
  bases: string[];
  /** sha256 of the side file listing the objects the verdicts read (see `ObjectsRead`). */
  objects: string;
  /** The verify time may fall in [notBefore, notAfter) (ms since the epoch; null: no end). */
  notBefore: number;
  notAfter: number | null;
  at: string;
  mac: string;
}

/** The objects one run's verdicts read: present ones must stay present, absent ones absent. */
export interface ObjectsRead {
  present: string[];
  absent: string[];
}

/** When a verdict reached at `now` holds, as far as the clock goes. */
export interface TimeWindow {
  notBefore: number;
  notAfter: number | null;
}

/**
 * From `now` (the verify time: nothing dated after it was flagged, so a clock set back before
 * it may flag something) to the next instant at which an allowed_signers key starts or stops
 * being valid (OpenSSH compares whole seconds, both bounds inclusive).
 */
export function timeWindow(now: Date, signers: readonly AllowedSigner[] = []): TimeWindow {
  const at = now.getTime();
  let end: number | null = null;
  for (const s of signers) {
    const edges = [
      s.validAfter === undefined ? undefined : Math.floor(s.validAfter.getTime() / 1000) * 1000,
      s.validBefore === undefined
        ? undefined
        : (Math.floor(s.validBefore.getTime() / 1000) + 1) * 1000,
    ];
    for (const edge of edges)
      if (edge !== undefined && edge > at && (end === null || edge < end)) end = edge;
  }
  return { notBefore: at, notAfter: end };
}

export type CacheLookup =
  | { hit: true; commit: string; bases: string[]; objects: ObjectsList }
  | { hit: false; reason: string };

/** The tip that verified under `key` in this clone, or why there is none to use at `now`. */
export async function readVerifiedTip(
  cloneDir: string,
  key: string,
  now: Date,
): Promise<CacheLookup> {
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
  if (secret === undefined || !macMatches(entry.mac, mac(secret, cloneDir, key, entry)))
    return { hit: false, reason: 'the cached entry does not carry this user’s MAC (ignored)' };
  const t = now.getTime();
  if (t < entry.notBefore)
    return {
      hit: false,
      reason: `the verify time ${now.toISOString()} is before the cached tip verified (${new Date(entry.notBefore).toISOString()})`,
    };
  if (entry.notAfter !== null && t >= entry.notAfter)
    return {
      hit: false,
      reason: `an allowed_signers key became valid or expired at ${new Date(entry.notAfter).toISOString()}, after the cached tip verified`,
    };
  const objects = await readObjectsList(cloneDir, entry.objects);
  if (objects === undefined)
    return { hit: false, reason: 'the list of objects the cached tip read is missing (ignored)' };
  return { hit: true, commit: entry.commit, bases: entry.bases, objects };
}

/**
 * Notes `commit` as verified under `key`, with the base commits of the records it holds and the
 * objects its verdicts read (`packs`: the repository's usable packs, to sort packed ids into
 * segments).
 * Best effort: a cache that cannot be written is no error.
 */
export async function writeVerifiedTip(
  cloneDir: string,
  key: string,
  commit: string,
  baseCommits: Iterable<string>,
  read: ObjectsList,
  window: TimeWindow,
  packs: () => readonly UsablePack[],
) {
  if (!OID.test(commit)) return;
  const bases = [...new Set(baseCommits)].sort();
  if (!bases.every((b) => OID.test(b))) return;
  try {
    const secret = await readSecret(true);
    if (secret === undefined) return;
    await mkdir(cloneDir, { recursive: true, mode: 0o700 });
    const objects = await writeObjectsList(cloneDir, packs, read);
    if (objects === undefined) return;
    const found = await readEntries(cloneDir);
    const entries = found instanceof Map ? found : new Map<string, Entry>();
    entries.delete(key);
    const unsigned = { commit, bases, objects, ...window, at: new Date().toISOString() };
    entries.set(key, { ...unsigned, mac: mac(secret, cloneDir, key, unsigned) });
    const kept = [...entries].slice(-MAX_KEYS);
    const text = `${JSON.stringify({ schema: SCHEMA, entries: Object.fromEntries(kept) })}\n`;
    await writeAtomically(join(cloneDir, FILE), text);
    await dropUnusedObjectFiles(
      cloneDir,
      kept.map(([, e]) => e.objects),
    );
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
        typeof e.objects === 'string' &&
        HEX64.test(e.objects) &&
        typeof e.notBefore === 'number' &&
        (e.notAfter === null || typeof e.notAfter === 'number') &&
        typeof e.mac === 'string' &&
        HEX64.test(e.mac) &&
        typeof e.at === 'string'
      )
        out.set(key, {
          commit: e.commit,
          bases: e.bases,
          objects: e.objects,
          notBefore: e.notBefore,
          notAfter: e.notAfter ?? null,
          at: e.at,
          mac: e.mac,
        });
    }
    return out;
  } catch {
    return 'unreadable';
  }
}

function mac(secret: Buffer, cloneDir: string, key: string, e: Omit<Entry, 'mac' | 'at'>): string {
  const window = `${e.notBefore}\0${e.notAfter ?? ''}`;
  return createHmac('sha256', secret)
    .update(
      `${SCHEMA}\0${cloneDir}\0${key}\0${e.commit}\0${e.bases.join(',')}\0${e.objects}\0${window}`,
    )
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
