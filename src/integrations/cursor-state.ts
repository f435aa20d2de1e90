/**
 * What Cursor's `afterAgentResponse` hook decided, kept for its `stop` hook: Cursor ignores the
 * former's answer, and only the latter can send the agent a follow-up (`followup_message`).
 *
 * Kept in the user's state dir (`$XDG_STATE_HOME/ledger/cursor/`), never in the work tree: the
 * agent controls the work tree, and a file there could forge "recorded, nothing to say" or a
 * follow-up of its own. Keyed by a hash of conversation_id and generation_id (values the agent
 * does not choose, and never a path). An entry is answered at most once: `stop` marks it
 * answered before it speaks. Entries are few and small, and pruned on every write (older than
 * a day, or past the newest 200).
 *
 * Imports only node built-ins and the small writer every state file uses
 * (paths/write-atomically.ts): the cheap path asks `hasPending` on every `stop`.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { stateRoot } from '../paths/state-root.js';
import { writeAtomically } from '../paths/write-atomically.js';

export interface CursorOutcome {
  outcome: 'recorded' | 'refused';
  lowered?: boolean;
  /** The follow-up to send at `stop` (absent: nothing to send). */
  followup?: string;
  /** A follow-up for this generation was already sent. */
  answered?: boolean;
}

const MAX_ENTRIES = 200;
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** `$XDG_STATE_HOME/ledger/cursor`: under the same root as every other state of this user. */
export function cursorStateDir(): string {
  return join(stateRoot(), 'cursor');
}

/** The entry's file, or undefined when the input does not name a generation. */
export function entryPath(conversation: unknown, generation: unknown): string | undefined {
  if (typeof conversation !== 'string' || typeof generation !== 'string') return undefined;
  if (conversation === '' || generation === '') return undefined;
  const key = createHash('sha256')
    .update(JSON.stringify([conversation, generation]))
    .digest('hex');
  return join(cursorStateDir(), `${key}.json`);
}

/** Whether `stop` may have something to say for this generation (cheap: one stat). */
export function hasPending(conversation: unknown, generation: unknown): boolean {
  const path = entryPath(conversation, generation);
  return path !== undefined && existsSync(path);
}

export async function readOutcome(path: string): Promise<CursorOutcome | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as CursorOutcome;
    if (value === null || typeof value !== 'object') return undefined;
    if (value.outcome !== 'recorded' && value.outcome !== 'refused') return undefined;
    if (value.followup !== undefined && typeof value.followup !== 'string') return undefined;
    return value;
  } catch {
    return undefined; // a torn or foreign file: nothing to say
  }
}

/** Writes the entry (atomically, 0600), keeping `answered` from an earlier one. */
export async function writeOutcome(path: string, outcome: CursorOutcome): Promise<void> {
  const dir = cursorStateDir();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const before = await readOutcome(path);
  const entry = before?.answered === true ? { ...outcome, answered: true } : outcome;
  await writeAtomically(path, JSON.stringify(entry));
  await prune(dir);
}

async function prune(dir: string): Promise<void> {
  const now = Date.now();
  const entries: { path: string; mtime: number }[] = [];
  for (const name of await readdir(dir)) {
    if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
    const path = join(dir, name);
    try {
      entries.push({ path, mtime: (await stat(path)).mtimeMs });
    } catch {
      // removed meanwhile
    }
  }
  entries.sort((a, b) => b.mtime - a.mtime);
  for (const [i, e] of entries.entries())
    if (i >= MAX_ENTRIES || now - e.mtime > MAX_AGE_MS) await rm(e.path, { force: true });
}
