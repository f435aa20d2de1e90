/**
 * The record model's names and closed vocabularies, without the zod schemas that check them.
 * Importing zod and building the schemas costs tens of milliseconds at every start-up; a
 * command that only needs to know the statuses or the format names (every command's flags and
 * help do) must not pay that. `record.ts` re-exports all of this.
 */

/** The schema new records are written in. */
export const RECORD_SCHEMA = 'ledger.record/v2';
export const RECORD_SCHEMA_V1 = 'ledger.record/v1';
export const RECORD_SCHEMAS = [RECORD_SCHEMA_V1, RECORD_SCHEMA] as const;
export const LOG_ENTRY_SCHEMA = 'ledger.log/v1';

/** The ledger's own status vocabulary; format-specific statuses map onto it. */
export const STATUSES = ['success', 'partial', 'blocked', 'failed'] as const;
export type Status = (typeof STATUSES)[number];

export const FORMATS = ['ledger', 'maxsim', 'mainark', 'kxm', 'team', 'structured'] as const;
export type FormatName = (typeof FORMATS)[number];

export const RECORD_ID = /^sha256:[0-9a-f]{64}$/;
