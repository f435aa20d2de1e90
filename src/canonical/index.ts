export {
  decodeCanonical,
  encodeCanonical,
  DEFAULT_LIMITS,
  type CborValue,
  type DecodeLimits,
  type EncodeOptions,
} from './cbor.js';
export { isRecordId, parseRecordIdPrefix, sha256Hex, toRecordId } from './ids.js';
