/**
 * Handoffs in another Unicode encoding than UTF-8, told apart before anything reads them:
 * Windows PowerShell 5.1 writes UTF-16LE with a byte-order mark for `>` and `Out-File`, and
 * strict UTF-8 decoding then calls the file "not valid UTF-8" (or, without a mark, reads its
 * every other byte as NUL and no format recognises it). Naming the encoding, and how to re-save
 * the file, is the only answer that helps (red team round 12, finding 6).
 */

/** How much of the input the mark-less UTF-16 test looks at. */
const SAMPLE_BYTES = 512;

/**
 * The encoding of `bytes` when it is UTF-16 or UTF-32 (by byte-order mark, or UTF-16 without
 * one: mostly-ASCII text whose every other byte is 0); undefined otherwise, UTF-8's own mark
 * included. A UTF-8 text has no NUL bytes at every other place, so this never takes one.
 */
export function otherUnicodeEncoding(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return 'UTF-32LE';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'UTF-32BE';
  if (a === 0xff && b === 0xfe) return 'UTF-16LE';
  if (a === 0xfe && b === 0xff) return 'UTF-16BE';
  const units = Math.floor(Math.min(bytes.length, SAMPLE_BYTES) / 2);
  if (units < 2) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < units; i++) {
    if (bytes[2 * i] === 0) evenZero++;
    if (bytes[2 * i + 1] === 0) oddZero++;
  }
  // ASCII in UTF-16: the high byte of most units is 0, the low byte of none.
  if (evenZero === 0 && oddZero * 2 >= units) return 'UTF-16LE (without a byte-order mark)';
  if (oddZero === 0 && evenZero * 2 >= units) return 'UTF-16BE (without a byte-order mark)';
  return undefined;
}

/** What to do about a handoff in `encoding`: the PowerShell that re-saves it as UTF-8. */
export function resaveAsUtf8(encoding: string): string {
  return `it is ${encoding} text, and handoffs are read as UTF-8: re-save it as UTF-8 (PowerShell: \`Get-Content FILE | Out-File -Encoding utf8 NEWFILE\`, or \`Set-Content -Encoding utf8\`; Windows PowerShell 5.1 writes UTF-16 for \`>\` and \`Out-File\` by default)`;
}
