/**
 * Per-clone state that never travels: the policy file `ledger init` writes and the list of
 * records made in this clone (whose witnesses `verify --rerun` may run by default).
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { LedgerError } from '../model/errors.js';
import type { RepoPaths } from '../store/git/repo.js';

export const Policy = z.strictObject({
  version: z.literal(1),
  rerun: z.strictObject({
    /** Re-run the witnesses of records made in this clone. */
    recordedHere: z.boolean(),
    /** Further commands allowed to re-run, whatever record they come from (exact strings). */
    commands: z.array(z.string()),
  }),
  witnessTimeoutSeconds: z.number().int().positive(),
});
export type Policy = z.infer<typeof Policy>;

export const DEFAULT_POLICY: Policy = {
  version: 1,
  rerun: { recordedHere: true, commands: [] },
  witnessTimeoutSeconds: 600,
};

export function ledgerDir(repo: RepoPaths): string {
  return join(repo.commonDir, 'ledger');
}

export function policyPath(repo: RepoPaths): string {
  return join(ledgerDir(repo), 'policy.json');
}

export async function readPolicyFile(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new LedgerError('POLICY', `cannot read the policy file ${path}: ${(error as Error).message}`, {
      hint: 'Create it with ledger init, or name an existing one with --policy.',
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LedgerError('POLICY', `the policy file ${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = Policy.safeParse(value);
  if (!parsed.success) {
    throw new LedgerError('POLICY', `the policy file ${path} is not a ledger policy`, {
      problems: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

/** The clone's policy, or the default when `ledger init` has not written one. */
export async function readLocalPolicy(repo: RepoPaths): Promise<Policy> {
  try {
    await readFile(policyPath(repo));
  } catch {
    return DEFAULT_POLICY;
  }
  return readPolicyFile(policyPath(repo));
}

export async function writeDefaultPolicy(repo: RepoPaths): Promise<boolean> {
  await mkdir(ledgerDir(repo), { recursive: true });
  try {
    await writeFile(policyPath(repo), `${JSON.stringify(DEFAULT_POLICY, null, 2)}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

const RECORDED = 'recorded';

export async function noteRecordedHere(repo: RepoPaths, id: string): Promise<void> {
  await mkdir(ledgerDir(repo), { recursive: true });
  // O_APPEND writes of one short line are atomic, so concurrent records never interleave.
  await appendFile(join(ledgerDir(repo), RECORDED), `${id}\n`);
}

export async function readRecordedHere(repo: RepoPaths): Promise<Set<string>> {
  try {
    const text = await readFile(join(ledgerDir(repo), RECORDED), 'utf8');
    return new Set(text.split('\n').filter((l) => /^sha256:[0-9a-f]{64}$/.test(l)));
  } catch {
    return new Set();
  }
}
