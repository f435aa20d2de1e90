/**
 * What verify asks of a record's format (what a claimed status word means, the checks only the
 * format knows, how to re-derive the status), resolved once per record. A record of the ledger's
 * own format with no kept handoff (`record --status`) needs nothing but the model's rules for
 * it; any other record loads the format registry, once, when the first such record is judged.
 * Importing the registry is importing every format module and their parsers, about as much
 * CPU as the rest of a plain verify (issue 21).
 */
import type { FormatModule } from '../formats/index.js';
import { LedgerError } from '../model/errors.js';
import { OWN_READER_REVISION, ownStatusOf, rederiveOwn } from '../model/own-format.js';
import type { LedgerRecord } from '../model/record.js';
import { OWN_FORMAT } from '../model/vocabulary.js';
import type { KeptInputs } from '../record/derivation.js';

/** The parts of a format module verify uses. */
export type FormatRules = Pick<
  FormatModule,
  'parse' | 'rederive' | 'statusOf' | 'verify' | 'readerRevision'
>;
/**
 * The rules a stored record follows (also the derivation's: src/record/derivation.ts); throws,
 * as the registry does, for a format this build lacks.
 */
export type FormatRulesOf = (record: Pick<LedgerRecord, 'format'>) => FormatRules;

const OWN: FormatRules = {
  readerRevision: OWN_READER_REVISION,
  statusOf: ownStatusOf,
  rederive: rederiveOwn,
  // Never called: a record with a kept source to parse is given the registry's rules.
  parse: () => {
    throw new LedgerError('INTERNAL', 'the own-format rules were asked to parse a handoff');
  },
};
const ownRules: FormatRulesOf = () => OWN;

let registry: Promise<FormatRulesOf> | undefined;

export function rulesFor(
  record: Pick<LedgerRecord, 'format'>,
  kept: KeptInputs | { unavailable: string },
): Promise<FormatRulesOf> {
  const source = 'unavailable' in kept ? undefined : kept.source;
  if (record.format === OWN_FORMAT && source === undefined) return Promise.resolve(ownRules);
  registry ??= import('../formats/index.js').then((m) => m.recordModule);
  return registry;
}
