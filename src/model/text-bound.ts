import { z } from 'zod';

/**
 * A string of at most `max` UTF-16 code units: the unit spec/encoding.md bounds text in, and the
 * one `record` slices by. zod 4's `.max` alone counts code points once a string's units pass the
 * bound (`'😀'.repeat(4096)`, 8,192 units, passes `.max(4096)`), so a forged record could carry
 * text past the CDDL's byte bound and verify; the units are checked as well.
 */
export function utf16Bounded(max: number) {
  return z
    .string()
    .max(max)
    .refine((s) => s.length <= max, {
      message: `Too big: expected string to have <=${max} UTF-16 code units`,
    });
}
