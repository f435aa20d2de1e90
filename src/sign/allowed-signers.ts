/**
 * git's and OpenSSH's `allowed_signers` file (ssh-keygen(1), ALLOWED SIGNERS):
 *
 *   principals [options] keytype base64key [comment]
 *
 * parsed the way OpenSSH's sshsig.c does, so a line means the same thing to `ledger verify`
 * as to `ssh-keygen -Y verify`. Where we differ we are stricter, never more trusting:
 * `cert-authority` lines are parsed but never match (we do not verify certificates).
 */
import { LedgerError } from '../model/errors.js';
import { KNOWN_KEY_TYPES, formatPublicKey, parsePublicKeyLine, readKeyTypeOfBlob } from './keys.js';
import { matchPatternList, parseTime } from './openssh-match.js';
import { bytesEqual, decodeBase64 } from './wire.js';

export { matchPattern, matchPatternList, parseTime } from './openssh-match.js';

export interface AllowedSigner {
  /** 1-based line number in the file. */
  line: number;
  /** The principals pattern list as written (comma-separated, `*`/`?` wildcards, `!` negation). */
  principals: string;
  /** The `namespaces="…"` pattern list, when the line restricts namespaces. */
  namespaces?: string;
  validAfter?: Date;
  validBefore?: Date;
  /** Parsed but never trusted: certificates are not supported. */
  certAuthority: boolean;
  keyType: string;
  /** `keytype base64`, comparable with `verifySignature`'s `publicKey`. */
  publicKey: string;
  keyBlob: Uint8Array;
  comment?: string;
}

export interface AllowedSignersProblem {
  line: number;
  message: string;
}

const WHITESPACE = /[ \t\r\n]/;

/**
 * Parses an allowed_signers file. Every malformed line is reported with its line number and
 * left out of `entries`; the rest of the file still parses. Never throws.
 */
export function parseAllowedSigners(text: string): {
  entries: AllowedSigner[];
  problems: AllowedSignersProblem[];
} {
  const entries: AllowedSigner[] = [];
  const problems: AllowedSignersProblem[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    try {
      const entry = parseLine(lines[i]!, line);
      if (entry === undefined) continue;
      entries.push(entry);
      if (entry.certAuthority) {
        problems.push({
          line,
          message:
            'cert-authority is not supported (certificates are not verified); the line is never trusted',
        });
      }
    } catch (error) {
      problems.push({ line, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { entries, problems };
}

function fail(message: string): never {
  throw new LedgerError('INVALID_INPUT', message);
}

function parseLine(raw: string, line: number): AllowedSigner | undefined {
  const cursor = { text: raw, at: 0 };
  skipSpace(cursor);
  if (cursor.at >= raw.length || raw[cursor.at] === '#') return undefined;

  const principals = readPrincipals(cursor);
  if (principals === '') fail('empty principals');
  skipSpace(cursor);
  if (cursor.at >= raw.length) fail('missing key after the principals');

  let options: Options = { certAuthority: false };
  let token = peekToken(cursor);
  if (!KNOWN_KEY_TYPES.has(token)) {
    const optionText = readOptionsToken(cursor);
    try {
      options = parseOptions(optionText);
    } catch (error) {
      if (/^(ssh|ecdsa|sk)-/.test(token)) fail(`unsupported key type ${token}`);
      throw error;
    }
    skipSpace(cursor);
    if (cursor.at >= raw.length) fail('missing key after the options');
    token = peekToken(cursor);
    if (!KNOWN_KEY_TYPES.has(token))
      fail(`expected a key type, got ${JSON.stringify(token.slice(0, 40))}`);
  }

  const keyType = readToken(cursor);
  skipSpace(cursor);
  const base64 = readToken(cursor);
  if (base64 === '') fail(`missing base64 key after ${keyType}`);
  const keyBlob = decodeBase64(base64);
  if (keyBlob === undefined) fail(`${keyType} key is not valid base64`);
  let inner: string;
  try {
    inner = readKeyTypeOfBlob(keyBlob);
  } catch {
    fail(`${keyType} key is truncated`);
  }
  if (inner !== keyType)
    fail(`key type mismatch: the line says ${keyType}, the key inside is ${inner}`);
  const comment = raw.slice(cursor.at).trim();

  return {
    line,
    principals,
    certAuthority: options.certAuthority,
    keyType,
    publicKey: formatPublicKey(keyBlob),
    keyBlob,
    ...(options.namespaces === undefined ? {} : { namespaces: options.namespaces }),
    ...(options.validAfter === undefined ? {} : { validAfter: options.validAfter }),
    ...(options.validBefore === undefined ? {} : { validBefore: options.validBefore }),
    ...(comment === '' ? {} : { comment }),
  };
}

interface Cursor {
  text: string;
  at: number;
}

function skipSpace(c: Cursor): void {
  while (c.at < c.text.length && WHITESPACE.test(c.text[c.at]!)) c.at++;
}

function peekToken(c: Cursor): string {
  let end = c.at;
  while (end < c.text.length && !WHITESPACE.test(c.text[end]!)) end++;
  return c.text.slice(c.at, end);
}

function readToken(c: Cursor): string {
  const token = peekToken(c);
  c.at += token.length;
  return token;
}

/** The principals field: one token, or a double-quoted string (OpenSSH's strdelimw). */
function readPrincipals(c: Cursor): string {
  if (c.text[c.at] === '"') {
    const close = c.text.indexOf('"', c.at + 1);
    if (close < 0) fail('unterminated quote in principals');
    const value = c.text.slice(c.at + 1, close);
    c.at = close + 1;
    if (c.at < c.text.length && !WHITESPACE.test(c.text[c.at]!)) {
      fail('expected whitespace after the quoted principals');
    }
    return value;
  }
  const token = readToken(c);
  if (token.includes('"')) fail('a quote inside the principals (quote the whole field)');
  return token;
}

/** The options field runs to the first whitespace outside double quotes. */
function readOptionsToken(c: Cursor): string {
  const start = c.at;
  let quoted = false;
  while (c.at < c.text.length) {
    const ch = c.text[c.at]!;
    if (!quoted && WHITESPACE.test(ch)) break;
    if (ch === '\\' && c.text[c.at + 1] === '"') c.at++;
    else if (ch === '"') quoted = !quoted;
    c.at++;
  }
  if (quoted) fail('unterminated quote in the options');
  return c.text.slice(start, c.at);
}

interface Options {
  certAuthority: boolean;
  namespaces?: string;
  validAfter?: Date;
  validBefore?: Date;
}

function parseOptions(text: string): Options {
  const options: Options = { certAuthority: false };
  let at = 0;
  while (at < text.length) {
    const nameMatch = /^[A-Za-z-]+/.exec(text.slice(at));
    const name = (nameMatch?.[0] ?? '').toLowerCase();
    at += nameMatch?.[0].length ?? 0;
    if (name === 'cert-authority' && (at === text.length || text[at] === ',')) {
      options.certAuthority = true;
    } else if (
      (name === 'namespaces' || name === 'valid-after' || name === 'valid-before') &&
      text[at] === '='
    ) {
      const { value, next } = readQuoted(text, at + 1, name);
      at = next;
      if (name === 'namespaces') {
        if (options.namespaces !== undefined) fail('more than one namespaces option');
        options.namespaces = value;
      } else {
        const key = name === 'valid-after' ? 'validAfter' : 'validBefore';
        if (options[key] !== undefined) fail(`more than one ${name} option`);
        const time = parseTime(value);
        if (time === undefined) {
          fail(`invalid ${name} time ${JSON.stringify(value)}: expected YYYYMMDD[HHMM[SS]][Z]`);
        }
        options[key] = time;
      }
    } else {
      const got = text.slice(at - (nameMatch?.[0].length ?? 0)).split(',')[0] ?? '';
      fail(`unsupported option ${JSON.stringify(got.slice(0, 40))}`);
    }
    if (at === text.length) break;
    if (text[at] !== ',') fail(`expected "," between options, got ${JSON.stringify(text[at])}`);
    at++;
    if (at === text.length) fail('options end with ","');
  }
  if (
    options.validAfter !== undefined &&
    options.validBefore !== undefined &&
    options.validBefore.getTime() <= options.validAfter.getTime()
  ) {
    fail('valid-before is not after valid-after');
  }
  return options;
}

/** OpenSSH's opt_dequote: the value must be double-quoted; `\"` stands for a quote. */
function readQuoted(text: string, at: number, name: string): { value: string; next: number } {
  if (text[at] !== '"') fail(`${name}: expected a quoted value (${name}="…")`);
  let value = '';
  let i = at + 1;
  while (i < text.length && text[i] !== '"') {
    if (text[i] === '\\' && text[i + 1] === '"') i++;
    value += text[i];
    i++;
  }
  if (i >= text.length) fail(`${name}: missing closing quote`);
  return { value, next: i + 1 };
}

function toBlob(publicKey: string | Uint8Array): Uint8Array {
  return typeof publicKey === 'string' ? parsePublicKeyLine(publicKey).blob : publicKey;
}

function entryAllows(entry: AllowedSigner, key: Uint8Array, namespace: string, at: Date): boolean {
  if (entry.certAuthority || !bytesEqual(entry.keyBlob, key)) return false;
  if (entry.namespaces !== undefined && !matchPatternList(namespace, entry.namespaces))
    return false;
  // OpenSSH compares whole seconds, both bounds inclusive.
  const seconds = Math.floor(at.getTime() / 1000);
  if (entry.validAfter !== undefined && seconds < Math.floor(entry.validAfter.getTime() / 1000)) {
    return false;
  }
  if (entry.validBefore !== undefined && seconds > Math.floor(entry.validBefore.getTime() / 1000)) {
    return false;
  }
  return true;
}

/**
 * The principals that `entries` bind to `publicKey` for `namespace` at time `at`, like
 * `ssh-keygen -Y find-principals` (which also applies the namespace restriction here, as
 * `-Y verify` does). `principal` is the first matching line's principals field as written;
 * `principals` lists the patterns of every matching line. Throws INVALID_INPUT for a
 * malformed `publicKey`.
 */
export function findSigner(
  entries: readonly AllowedSigner[],
  publicKey: string | Uint8Array,
  namespace: string,
  at: Date,
): { principal: string; principals: string[]; lines: number[] } | undefined {
  const key = toBlob(publicKey);
  const matches = entries.filter((entry) => entryAllows(entry, key, namespace, at));
  const first = matches[0];
  if (first === undefined) return undefined;
  const principals = [...new Set(matches.flatMap((entry) => entry.principals.split(',')))];
  return { principal: first.principals, principals, lines: matches.map((entry) => entry.line) };
}

/**
 * The principals `entries` name for `publicKey` in `namespace` at `at`: every literal principal
 * (no `*` or `?`, not negated) on a matching line that the line's own pattern list admits —
 * each one that `ssh-keygen -Y verify -I <it>` would accept. A line of patterns only
 * (`*@agents.example.com`) names no one: it admits a principal someone claims, it does not say
 * who signed. In file order, without repeats.
 */
export function namedPrincipals(
  entries: readonly AllowedSigner[],
  publicKey: string | Uint8Array,
  namespace: string,
  at: Date,
): string[] {
  const key = toBlob(publicKey);
  const out = new Set<string>();
  for (const entry of entries) {
    if (!entryAllows(entry, key, namespace, at)) continue;
    for (const item of entry.principals.split(',')) {
      if (item === '' || item.startsWith('!') || /[*?]/.test(item)) continue;
      if (matchPatternList(item, entry.principals)) out.add(item);
    }
  }
  return [...out];
}

/**
 * Whether `entries` allow `principal` to sign with `publicKey` in `namespace` at `at`, like
 * `ssh-keygen -Y verify -I principal`. Throws INVALID_INPUT for a malformed `publicKey`.
 */
export function isAllowedSigner(
  entries: readonly AllowedSigner[],
  principal: string,
  publicKey: string | Uint8Array,
  namespace: string,
  at: Date,
): boolean {
  const key = toBlob(publicKey);
  return entries.some(
    (entry) =>
      matchPatternList(principal, entry.principals) && entryAllows(entry, key, namespace, at),
  );
}
