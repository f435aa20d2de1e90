/**
 * A step's `--by` (or a record's claimed producer), quoted wherever ledger's own words surround
 * it. It is the step's word, not a signature, and unquoted it could close ledger's parenthesis
 * and write ledger's verdict ("mallory) (signed by reviewer rita") into verify's detail and an
 * export's signed metadata (red team, round thirteen), and `(resolved)` into the CI summary's
 * lifecycle cell or `show`'s lifecycle line (round fifteen). JSON quoting escapes its quotes and
 * control characters too. Here, beside the terminal's rules, so that every layer that prints
 * one (the report's renderers, `show`, verify's checks, the lifecycle rules) quotes it alike.
 */
export function quotedBy(by: string): string {
  return JSON.stringify(by);
}
