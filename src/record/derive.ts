/**
 * `deriveStatus` with the registry's rules: the one function `record` seals a record with and
 * `verify` re-derives it with (src/record/derivation.ts, which verify calls with the same
 * registry's rules, loaded only for a record that needs them), so the two never disagree.
 */
import { recordModule } from '../formats/index.js';
import {
  deriveStatusBy,
  type DerivableRecord,
  type Derivation,
  type DeriveOptions,
  type KeptInputs,
} from './derivation.js';

export {
  parseContextOf,
  type DerivableRecord,
  type Derivation,
  type DeriveOptions,
  type KeptInputs,
} from './derivation.js';

export function deriveStatus(
  record: DerivableRecord,
  kept: KeptInputs,
  options: DeriveOptions = {},
): Derivation {
  return deriveStatusBy(recordModule, record, kept, options);
}
