/**
 * The formats' public surface for the rest of `ledger`: the registry and the contract. Nothing
 * outside `src/formats/` imports a format module directly (that is what keeps `app/`, `verify/`
 * and `cli/` free of format names).
 */
export {
  claimedMeaning,
  detectFormat,
  emitAs,
  emitterNames,
  EMITTER_NAMES,
  formatModule,
  formatModules,
  formatStatsSchemas,
  formatViewSchemas,
  recordModule,
  isEmitterName,
  findEmitter,
  isFormatName,
  malformedHandoffFormat,
  sourceShapeOf,
  tryDetectFormat,
  type Detected,
  type EmitterName,
  type FormatViewSchemas,
} from './registry.js';
export {
  FormatOptions,
  type Detection,
  type Emitted,
  type Emitter,
  type FormatModule,
  type FormatStats,
  type FormatViews,
  type Lifecycle,
  type ParseContext,
  type ParsedHandoff,
  type ParseResult,
  type Sniff,
  type Uncheckable,
} from './contract.js';
export { MAX_HANDOFF_BYTES } from './kit/text.js';
export { issuesToProblems } from './kit/problems.js';
