/**
 * The files of this user's memory of a ledger (local-state.ts says what they hold), read and
 * appended by the modules that decide which memory applies: `ledgers/<sha256 of the root
 * entry>/recorded` and `…/clones/<clone id>/known-entries`, one entry id a line.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stateRoot } from '../../paths/state-root.js';
import type { Binding } from './clone-bindings.js';
import { sha256 } from './clone-bindings.js';

const ID = /^sha256:[0-9a-f]{64}$/;
export const RECORDED = 'recorded';
export const KNOWN_ENTRIES = 'known-entries';

export function isEntryId(text: string): boolean {
  return ID.test(text);
}

export function ledgerDirOf(ledger: string): string {
  return join(stateRoot(), 'ledgers', sha256(ledger).slice(0, 32));
}

export function cloneDirOf(binding: Pick<Binding, 'ledger' | 'clone'>): string {
  return join(ledgerDirOf(binding.ledger), 'clones', binding.clone);
}

/** The log entries the clone of `binding` held. */
export function readHeldBy(binding: Pick<Binding, 'ledger' | 'clone'>): Promise<Set<string>> {
  return readIdLines(join(cloneDirOf(binding), KNOWN_ENTRIES));
}

export async function readIdLines(path: string): Promise<Set<string>> {
  try {
    const text = await readFile(path, 'utf8');
    return new Set(text.split('\n').filter((l) => ID.test(l)));
  } catch {
    return new Set();
  }
}

/** O_APPEND writes of short lines are atomic, so concurrent commands never interleave. */
export async function appendIds(dir: string, file: string, ids: readonly string[]): Promise<void> {
  const lines = ids.filter((id) => ID.test(id));
  if (lines.length === 0) return;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await appendFile(join(dir, file), lines.map((id) => `${id}\n`).join(''));
}
