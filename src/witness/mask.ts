/**
 * Secrets kept out of stored witness output. A record-time witness runs with the user's whole
 * environment (it is the user's own command), and its stdout/stderr travel with the ledger to
 * every clone: a witness that prints `$NPM_TOKEN` would publish the token in history. So before
 * the output is hashed and stored, the values of secret-looking environment variables are
 * replaced, as CI systems mask secrets in their logs, and the record names what was masked.
 *
 * The rule (documented in docs/threat-model.md):
 *   - a variable is secret-looking when its name contains TOKEN, SECRET, PASSWORD, PASSWD,
 *     PASSPHRASE, CREDENTIAL, APIKEY, API_KEY, ACCESS_KEY or PRIVATE_KEY, or has KEY, PASS,
 *     PAT, AUTH, CREDS, COOKIE or SESSION as a whole `_`/`-`/`.`-separated word (any case);
 *   - only values of at least MIN_SECRET_LENGTH characters are masked, so `KEY=1` does not
 *     mask every `1` (GitLab's masked variables have the same floor);
 *   - the value's own bytes are masked, and each line of a multi-line value (a PEM key printed
 *     with other line endings);
 *   - so are its encoded forms (`encodedForms`): base64 and base64url — also inside a longer
 *     blob, where the value starts at any of the three byte offsets of a base64 group — hex in
 *     either case, and URL encoding (percent-encoded in either case, `+` for a space). `printf
 *     %s "$TOKEN" | base64` is as much a leak as the token. Encoded forms are found across line
 *     breaks too, as `base64` (76 columns) and `xxd -p` (60) wrap their output;
 *   - and the forms dump tools spread out (`mask-spread.ts`): hex or characters separated by
 *     spaces, colons or line breaks (`od`, `xxd`, `hexdump -C` with their offsets and ASCII
 *     columns), base32 and the reversed value. Output the witness transforms further is not
 *     covered: `--no-keep-output` is the defence for output that must not travel.
 *
 * At the edges of an encoded form inside a blob, a base64 character that mixes bits of the
 * value with bits of its neighbours stays (at most 6 bits at each end); everything in between
 * is masked.
 */

import { maskSpread } from './mask-spread.js';

/** Shortest value that is masked. */
export const MIN_SECRET_LENGTH = 8;

/** What a masked value is replaced with. */
export const MASK = '***';

const SECRET_SUBSTRINGS =
  /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|APIKEY|API_KEY|ACCESS_KEY|PRIVATE_KEY/i;
const SECRET_WORDS = new Set(['KEY', 'PASS', 'PAT', 'AUTH', 'CREDS', 'COOKIE', 'SESSION']);

/** Whether an environment variable's name says its value is a secret. */
export function isSecretName(name: string): boolean {
  if (SECRET_SUBSTRINGS.test(name)) return true;
  return name
    .toUpperCase()
    .split(/[_.-]+/u)
    .some((word) => SECRET_WORDS.has(word));
}

/** One byte pattern to mask, and the variable it came from. */
export interface Secret {
  name: string;
  bytes: Buffer;
  /** An encoded form (ASCII), which the printing tool may have wrapped across lines. */
  encoded?: boolean;
}

/** Inside a longer blob, base64 of a value that starts `offset` bytes into a 3-byte group. */
function base64Inner(value: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), value]).toString('base64');
  // Characters that hold only the value's bits: 6 bits each, after the offset's 8·offset bits.
  return encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + value.length)) / 6));
}

/** Percent-encoding of every byte outside `keep`, with upper- or lower-case hex digits. */
function percentEncode(value: Buffer, keep: RegExp, lower: boolean, plusForSpace = false): string {
  let out = '';
  for (const byte of value) {
    const char = String.fromCharCode(byte);
    if (plusForSpace && char === ' ') out += '+';
    else if (byte < 0x80 && keep.test(char)) out += char;
    else {
      const hex = byte.toString(16).padStart(2, '0');
      out += `%${lower ? hex : hex.toUpperCase()}`;
    }
  }
  return out;
}

/**
 * The encoded forms of a value that a witness might print instead of the value: base64 and
 * base64url (whole, padded, and the stable inner part at each of the three alignments), hex in
 * both cases, and URL encodings — RFC 3986 (curl, Python's `quote`), `encodeURIComponent`,
 * `encodeURI`, form encoding and every byte encoded — each with upper- and lower-case hex. Forms equal to the
 * value itself are left out.
 */
export function encodedForms(value: Buffer): string[] {
  const forms = new Set<string>();
  const base64 = [value.toString('base64'), ...[0, 1, 2].map((o) => base64Inner(value, o))];
  for (const form of base64) {
    forms.add(form);
    forms.add(form.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/u, ''));
  }
  forms.add(value.toString('hex'));
  forms.add(value.toString('hex').toUpperCase());
  for (const lower of [false, true]) {
    forms.add(percentEncode(value, /[A-Za-z0-9\-._~]/u, lower));
    forms.add(percentEncode(value, /[A-Za-z0-9\-._~/]/u, lower));
    forms.add(percentEncode(value, /[A-Za-z0-9\-_.!~*'()]/u, lower));
    forms.add(percentEncode(value, /[A-Za-z0-9\-_.!~*'();/?:@&=+$,#]/u, lower));
    forms.add(percentEncode(value, /[A-Za-z0-9\-_.*]/u, lower, true));
    forms.add(percentEncode(value, /(?!)/u, lower));
  }
  const raw = value.toString('latin1');
  return [...forms].filter((form) => form !== raw && form.length >= MIN_SECRET_LENGTH);
}

/**
 * The byte patterns to mask for an environment: each secret-looking variable's value, and each
 * line of a multi-line value, when long enough. Longest first, so that a value containing
 * another is replaced whole.
 */
export function secretsOf(env: NodeJS.ProcessEnv): Secret[] {
  const out: Secret[] = [];
  const seen = new Set<string>();
  const add = (name: string, text: string): void => {
    if (text.length < MIN_SECRET_LENGTH || seen.has(`${name}\0${text}`)) return;
    seen.add(`${name}\0${text}`);
    const bytes = Buffer.from(text, 'utf8');
    out.push({ name, bytes });
    for (const form of encodedForms(bytes)) {
      if (seen.has(`${name}\0${form}`)) continue;
      seen.add(`${name}\0${form}`);
      out.push({ name, bytes: Buffer.from(form, 'latin1'), encoded: true });
    }
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isSecretName(name)) continue;
    add(name, value);
    const lines = value.split(/\r?\n|\r/u);
    if (lines.length > 1) for (const line of lines) add(name, line.trim());
  }
  return out.sort((a, b) => b.bytes.length - a.bytes.length);
}

export interface Masked {
  bytes: Buffer;
  /** Names of the variables whose values occurred (sorted, each once). */
  names: string[];
}

/**
 * Replaces every occurrence of every secret in `bytes` with `***`. When the bytes were cut at
 * a cap (`truncated`), a tail that is the start of a secret is masked too: the cut must not
 * publish the first half of a token.
 */
export function maskSecrets(bytes: Buffer, secrets: readonly Secret[], truncated = false): Masked {
  const names = new Set<string>();
  const mask = Buffer.from(MASK);
  let current = bytes;
  for (const secret of secrets) {
    if (current.indexOf(secret.bytes) < 0) continue;
    names.add(secret.name);
    const parts: Buffer[] = [];
    let at = 0;
    for (let hit = current.indexOf(secret.bytes); hit >= 0;) {
      parts.push(current.subarray(at, hit), mask);
      at = hit + secret.bytes.length;
      hit = current.indexOf(secret.bytes, at);
    }
    parts.push(current.subarray(at));
    current = Buffer.concat(parts);
  }
  current = maskWrapped(current, secrets, names);
  current = maskSpread(
    current,
    secrets.filter((secret) => secret.encoded !== true),
    names,
    mask,
  );
  if (truncated) {
    for (const secret of secrets) {
      const longest = Math.min(secret.bytes.length - 1, current.length);
      for (let n = longest; n >= 1; n--) {
        if (current.subarray(current.length - n).equals(secret.bytes.subarray(0, n))) {
          current = Buffer.concat([current.subarray(0, current.length - n), mask]);
          names.add(secret.name);
          break;
        }
      }
    }
  }
  return { bytes: current, names: [...names].sort() };
}

/**
 * Encoded forms that a tool wrapped across lines (`base64`, `xxd -p`): matched with an optional
 * line break between any two characters. Only when the output has a line break at all; the
 * text is handled as latin1, one character per byte, so binary output is kept byte for byte.
 */
function maskWrapped(bytes: Buffer, secrets: readonly Secret[], names: Set<string>): Buffer {
  if (bytes.indexOf(0x0a) < 0) return bytes;
  let text = bytes.toString('latin1');
  // Cheap refusal first: a form that is not in the text with its line breaks taken out is not
  // in it wrapped either.
  const flat = text.replace(/\r?\n/gu, '');
  let changed = false;
  for (const secret of secrets) {
    if (!secret.encoded) continue;
    const form = secret.bytes.toString('latin1');
    if (!flat.includes(form)) continue;
    const pattern = new RegExp(
      [...form].map((c) => c.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&')).join('(?:\\r?\\n)?'),
      'g',
    );
    const next = text.replace(pattern, (match) => {
      names.add(secret.name);
      // Line breaks inside the match are kept: the output's shape stays, the form goes.
      return match.includes('\n') ? `${MASK}\n` : MASK;
    });
    if (next !== text) {
      text = next;
      changed = true;
    }
  }
  return changed ? Buffer.from(text, 'latin1') : bytes;
}
