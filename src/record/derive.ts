/**
 * `deriveStatus` with the registry's rules: the one function `record` seals a record with and
 * `verify` re-derives it with (src/record/derivation.ts, which verify calls with the same
 * registry's rules, loaded only for a record that needs them), so the two never disagree.
 *
 * A record of the ledger's own format with no kept handoff (`record --status`) is derived by
 * that format's module alone (the very module the registry would return for it): the registry,
 * every format module and their parsers, is loaded only for a record that needs it (issue 21).
 */
import { ownFormat } from '../formats/own.js';
import { OWN_FORMAT } from '../model/vocabulary.js';
import {
  deriveStatusBy,
  type DerivableRecord,
  type Derivation,
  type DeriveOptions,
  type DeriveRulesOf,
  type KeptInputs,
} from './derivation.js';

export {
  parseContextOf,
  type DerivableRecord,
  type Derivation,
  type DeriveOptions,
  type KeptInputs,
} from './derivation.js';

export async function deriveStatus(
  record: DerivableRecord,
  kept: KeptInputs,
  options: DeriveOptions = {},
): Promise<Derivation> {
  return deriveStatusBy(await rulesFor(record, kept), record, kept, options);
}

async function rulesFor(record: DerivableRecord, kept: KeptInputs): Promise<DeriveRulesOf> {
  if (record.format === OWN_FORMAT && kept.source === undefined) return () => ownFormat;
  return (await import('../formats/index.js')).recordModule;
}
