/**
 * What the secret-scan tests of `record` share: a `.env` that looks secret, a record call with
 * the defaults, the coded refusal it should end in, and the check that nothing was written.
 */
import { expect } from 'vitest';
import { recordHandoff, type RecordRequest } from '../../src/app/record.js';
import { isLedgerError, type LedgerError } from '../../src/model/errors.js';
import { gitTry } from './git.js';
import { TOKENS } from './secrets.js';

export const ENV = `DATABASE_URL=postgres://app:hunter2@db/app\nOPENAI_API_KEY=${TOKENS['openaiProject']}\n`;

export function record(dir: string, extra: Partial<RecordRequest> = {}) {
  return recordHandoff({ cwd: dir, status: 'success', summary: 'work', ...extra });
}

/** The LedgerError `promise` rejects with; fails the test when it resolves or throws another. */
export async function refusal(promise: Promise<unknown>): Promise<LedgerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isLedgerError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

/** Nothing was written: the ledger ref does not exist. */
export function noLedger(dir: string): void {
  expect(gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/ledger/log').code).not.toBe(0);
}
