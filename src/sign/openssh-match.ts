/**
 * OpenSSH's own rules for the two kinds of value an `allowed_signers` line holds besides keys:
 * absolute times (`valid-after`, `valid-before`) and pattern lists (principals, `namespaces=`),
 * each as OpenSSH's C code reads them, so a line means the same here as to `ssh-keygen`.
 */
/**
 * OpenSSH's parse_absolute_time: YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, in UTC with a `Z`
 * or `UTC` suffix and otherwise in the local time zone, as ssh-keygen reads it.
 */
export function parseTime(text: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?(z|utc)?$/i.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = match;
  const parts = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [year, month, day, hour, minute, second] = parts;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  let date: Date;
  if (zone === undefined) {
    date = new Date(year, month - 1, day, hour, minute, second);
    if (year < 100) date.setFullYear(year); // Date() maps years 0..99 to 1900..1999
  } else {
    date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
    if (year < 100) date.setUTCFullYear(year);
  }
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * OpenSSH's match_pattern_list (match.c), byte for byte: comma-separated `*`/`?` patterns over
 * the UTF-8 bytes (so `?` is one byte, as in C), a leading `!` negates a pattern and a matching
 * negated pattern vetoes the whole list, a pattern of 1023 bytes or more makes the whole list
 * fail, and a NUL ends the string as it would in C. Case-sensitive. This is what `ssh-keygen -Y
 * verify -I principal` applies to a line's principals, and to `namespaces=`.
 */
export function matchPatternList(value: string, list: string): boolean {
  // ssh-keygen is never asked about a name with a NUL (no argv can hold one), and C would cut it
  // there: "bot@x\0 and lead@y" matched bot@x's line, and the whole name counted as verified.
  if (value.includes('\0')) return false;
  const string = cString(value);
  const pattern = cString(list);
  let positive = false;
  let i = 0;
  while (i < pattern.length) {
    const negated = pattern[i] === '!';
    if (negated) i++;
    let end = i;
    while (end < pattern.length && end - i < MAX_SUBPATTERN && pattern[end] !== ',') end++;
    if (end - i >= MAX_SUBPATTERN) return false;
    const sub = pattern.slice(i, end);
    i = end < pattern.length && pattern[end] === ',' ? end + 1 : end;
    if (matchPattern(string, sub)) {
      if (negated) return false;
      positive = true;
    }
  }
  return positive;
}

/** OpenSSH copies a subpattern into `char sub[1024]` and gives up at 1023 bytes. */
const MAX_SUBPATTERN = 1023;

/** The bytes C would see: UTF-8, one character per byte (latin1), up to the first NUL. */
function cString(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  const nul = bytes.indexOf(0);
  return (nul < 0 ? bytes : bytes.subarray(0, nul)).toString('latin1');
}

/** Glob match with `*` and `?`, linear backtracking (no exponential blow-up on `*a*a*a…`). */
export function matchPattern(value: string, pattern: string): boolean {
  let v = 0;
  let p = 0;
  let starP = -1;
  let starV = 0;
  while (v < value.length) {
    const pc = pattern[p];
    if (pc === '*') {
      starP = p++;
      starV = v;
    } else if (pc !== undefined && (pc === '?' || pc === value[v])) {
      p++;
      v++;
    } else if (starP >= 0) {
      p = starP + 1;
      v = ++starV;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}
