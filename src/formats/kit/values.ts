/**
 * Small value helpers every module needs, each written once: JSON-like conversion for
 * `claims.extra` (the canonical layer takes only strings, safe integers, booleans, null, arrays
 * and plain objects), dropping undefined members, and typed reads of loosely shaped objects.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * An arbitrary parsed value made safe for `claims.extra`. Numbers that are not safe integers
 * become their decimal string: the record carries no floats (a deliberate, documented loss of
 * type, never of the value).
 */
export function toJsonLike(value: unknown): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : String(value);
  if (Array.isArray(value)) return value.map(toJsonLike);
  if (typeof value === 'object') {
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      Object.defineProperty(out, k, {
        value: toJsonLike(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return null;
}

/** Drops undefined members (exactOptionalPropertyTypes, and CBOR has no undefined). */
export function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as a string, or undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The value as a list of strings (non-strings dropped), or undefined when not a list. */
export function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** An object member as an object ({} when absent or not an object). */
export function objectAt(value: unknown, key: string): Record<string, unknown> {
  const v = isObject(value) ? value[key] : undefined;
  return isObject(v) ? v : {};
}
