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
 *     with other line endings); encoded forms (base64, URL-encoded) are not recognised.
 */

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
    out.push({ name, bytes: Buffer.from(text, 'utf8') });
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
