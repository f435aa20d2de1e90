/**
 * What makes an untracked file look secret: its name, or a private-key block or a well-known
 * token shape in its first bytes. Untracked files go into the candidate tree, which `git push`
 * and `ledger sync` carry to the remote where nothing can be removed again; a file that looks
 * secret is therefore refused rather than stored silently (app/secrets.ts applies this).
 *
 * The rules lean towards honest work not being stopped: a name rule names data files, never
 * source or documentation (`src/credentials.ts`, `docs/credentials.md` are code about
 * credentials, not credentials), committed templates (`.env.example`) are left to the content
 * rules, and a token-shaped string with too few distinct characters is a placeholder
 * (`ghp_xxxx…`), as is AWS's documented `…EXAMPLE` key. Pure: no I/O.
 */

/** Why a file looks secret: a sentence naming the rule, never any of the file's bytes. */
export interface SecretFinding {
  path: string;
  reason: string;
}

/** `.env` files that are committed templates, by convention, not secrets (content still checked). */
const ENV_TEMPLATES = new Set(['example', 'sample', 'template', 'dist', 'defaults', 'schema']);

/** Extensions of data files: `credentials.json` holds credentials, `credentials.ts` handles them. */
const DATA_EXTENSIONS = new Set([
  '',
  'json',
  'yml',
  'yaml',
  'toml',
  'ini',
  'xml',
  'txt',
  'csv',
  'env',
  'conf',
  'cfg',
  'properties',
  'plist',
  'db',
]);

/** Key and keystore files by extension. */
const KEY_EXTENSIONS = new Set(['pem', 'key', 'p12', 'pfx', 'ppk', 'jks', 'keystore', 'kdbx']);

/** Files that hold credentials whatever else they are. */
const CREDENTIAL_FILES = new Set(['.netrc', '_netrc', '.git-credentials', '.pgpass']);

/** The name rule: why `path` (repository-relative, `/`-separated) looks secret, or undefined. */
export function secretName(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const lower = name.toLowerCase();
  if (lower === '.env' || lower.startsWith('.env.') || lower === '.envrc') {
    const suffix = lower.slice('.env.'.length);
    if (!ENV_TEMPLATES.has(suffix)) return 'its name is an environment file (.env*)';
  }
  if (CREDENTIAL_FILES.has(lower)) return `its name is a credentials file (${lower})`;
  // ssh's default key names (id_rsa, id_ed25519_sk…); the .pub beside a key is public.
  if (/^id_(rsa|dsa|ecdsa|ed25519|xmss)/.test(lower) && !lower.endsWith('.pub'))
    return 'its name is an SSH private key (id_*)';
  const dot = lower.lastIndexOf('.');
  const ext = dot <= 0 ? '' : lower.slice(dot + 1);
  if (dot > 0 && KEY_EXTENSIONS.has(ext)) return `its name is a key or keystore file (*.${ext})`;
  const stem = dot <= 0 ? lower : lower.slice(0, dot);
  if (/^(credentials?|creds|secrets?)([._-].*)?$/.test(stem) && DATA_EXTENSIONS.has(ext))
    return 'its name is a credentials or secrets file';
  return undefined;
}

interface TokenShape {
  what: string;
  /**
   * The start of `pattern`'s source (after a leading `\b`): a part every match holds. All the
   * anchors together are one quick pass over a file (ANCHORS below) before any shape runs.
   */
  anchor: string;
  pattern: RegExp;
  /** The random part of a match, whose variety tells a key from a placeholder. */
  body: (match: RegExpExecArray) => string;
}

const group1 = (m: RegExpExecArray): string => m[1] ?? m[0];

/**
 * Token shapes as their issuers document them (and as gitleaks' default rules match them);
 * each anchored on a fixed prefix, so one pass over a file costs a few regular expressions.
 */
const TOKEN_SHAPES: readonly TokenShape[] = [
  {
    what: 'a private key block (-----BEGIN … PRIVATE KEY-----)',
    anchor: String.raw`-----BEGIN`,
    // A header followed by key material: a line of base64 (or PEM headers first), also inside
    // a JSON string (`\n` escapes); the header alone (a parser's constant) is no key.
    pattern:
      /-----BEGIN[ A-Z0-9]{0,20}PRIVATE KEY(?: BLOCK)?-----(?:\s|\\[rn])+(?:[A-Za-z-]+: [^\n\\]*(?:\s|\\[rn])+)*([A-Za-z0-9+/=]{40,})/g,
    body: group1,
  },
  {
    what: 'an AWS access key id',
    anchor: String.raw`(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])`,
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])([A-Z2-7]{16})\b/g,
    body: group1,
  },
  {
    what: 'a GitHub token',
    anchor: String.raw`gh[pousr]_`,
    pattern: /\bgh[pousr]_([A-Za-z0-9]{36,})\b/g,
    body: group1,
  },
  {
    what: 'a GitHub fine-grained token',
    anchor: String.raw`github_pat_`,
    pattern: /\bgithub_pat_([A-Za-z0-9_]{82})\b/g,
    body: group1,
  },
  {
    what: 'a GitLab token',
    anchor: String.raw`glpat-`,
    pattern: /\bglpat-([A-Za-z0-9_-]{20,})/g,
    body: group1,
  },
  {
    what: 'a Slack token',
    anchor: String.raw`xox[abposr]-`,
    pattern: /\bxox[abposr]-([0-9A-Za-z-]{20,})/g,
    body: group1,
  },
  {
    what: 'a Slack webhook URL',
    anchor: String.raw`hooks\.slack\.com\/`,
    pattern: /hooks\.slack\.com\/(?:services|workflows)\/([A-Za-z0-9+/]{40,})/g,
    body: group1,
  },
  {
    what: 'an Anthropic API key',
    anchor: String.raw`sk-ant-`,
    pattern: /\bsk-ant-[a-z0-9]+-([A-Za-z0-9_-]{80,})/g,
    body: group1,
  },
  {
    what: 'an OpenAI API key',
    anchor: String.raw`sk-`,
    pattern:
      /\bsk-(?:(?:proj|svcacct|admin)-([A-Za-z0-9_-]{40,})|([A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})|([A-Za-z0-9]{48})\b)/g,
    body: (m) => m[1] ?? m[2] ?? m[3] ?? m[0],
  },
  {
    what: 'a Google API key',
    anchor: String.raw`AIza`,
    pattern: /\bAIza([0-9A-Za-z_-]{35})/g,
    body: group1,
  },
  {
    what: 'a Stripe live key',
    anchor: String.raw`[sr]k_live_`,
    pattern: /\b[sr]k_live_([0-9A-Za-z]{24,})/g,
    body: group1,
  },
  {
    what: 'an npm token',
    anchor: String.raw`npm_`,
    pattern: /\bnpm_([A-Za-z0-9]{36})\b/g,
    body: group1,
  },
  {
    what: 'a Hugging Face token',
    anchor: String.raw`hf_`,
    pattern: /\bhf_([A-Za-z]{34})\b/g,
    body: group1,
  },
];

/** Fewer distinct characters than this in a token's random part: a placeholder, not a key. */
const MIN_DISTINCT = 10;

function isPlaceholder(body: string, match: string): boolean {
  if (match.endsWith('EXAMPLE')) return true;
  return new Set(body).size < Math.min(MIN_DISTINCT, body.length);
}

/**
 * Some shape's start, anywhere: text without one holds no shape, and that is nearly every
 * file. One pass of this is cheaper than the thirteen passes of the shapes (issue 21: the
 * shapes, run on every byte, cost a record of 1,000 × 64 KiB files about 0.4 s of CPU; this
 * about a fifth of that), and it leaves the verdicts as they were: every match of a shape
 * starts with its anchor (test/record/secrets.test.ts holds each shape to that).
 */
const ANCHORS = new RegExp(TOKEN_SHAPES.map((shape) => shape.anchor).join('|'));

/** Each shape's anchor and pattern source, for the test that holds the two together. */
export const TOKEN_ANCHORS: readonly { anchor: string; source: string }[] = TOKEN_SHAPES.map(
  (shape) => ({ anchor: shape.anchor, source: shape.pattern.source }),
);

/** The content rule: what secret-shaped string `text` holds, or undefined. Never the string itself. */
export function secretContent(text: string): string | undefined {
  if (!ANCHORS.test(text)) return undefined;
  for (const shape of TOKEN_SHAPES) {
    shape.pattern.lastIndex = 0;
    for (let m = shape.pattern.exec(text); m !== null; m = shape.pattern.exec(text)) {
      if (!isPlaceholder(shape.body(m), m[0])) return `its content holds ${shape.what}`;
    }
  }
  return undefined;
}

/**
 * How many bytes before a chunk boundary a streamed scan carries over, so that a token split
 * across two chunks is still seen whole (the longest shape above is under 200 characters;
 * a key block's header and first line of base64 under 300).
 */
export const SCAN_OVERLAP = 512;

/**
 * A scan over a file's bytes given chunk by chunk: each chunk is scanned with the tail of the
 * one before it. `finding` is set at the first match.
 */
export class ContentScan {
  private tail = '';
  finding: string | undefined;

  push(chunk: Uint8Array): void {
    if (this.finding !== undefined) return;
    // latin1 maps every byte to one character: binary data never throws, offsets stay bytes.
    const text =
      this.tail + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    this.finding = secretContent(text);
    this.tail = text.slice(-SCAN_OVERLAP);
  }
}
