/**
 * The rules that make an untracked file look secret (src/record/secrets.ts), on names and on
 * content — both ways: what must be caught, and the honest files that must not be. Token
 * values are built at run time so that this file holds no token-shaped string itself.
 */
import { describe, expect, it } from 'vitest';
import {
  ContentScan,
  SCAN_OVERLAP,
  secretContent,
  secretName,
  TOKEN_ANCHORS,
} from '../../src/record/secrets.js';
import { PRIVATE_KEY, TOKENS } from '../helpers/secrets.js';

describe('secretName: names that hold secrets', () => {
  it.each([
    '.env',
    'app/.env',
    '.env.local',
    '.env.production',
    '.envrc',
    'server.pem',
    'certs/tls.key',
    'master.key',
    'store.p12',
    'store.pfx',
    'id_rsa',
    'keys/id_ed25519',
    'id_ecdsa_sk',
    'credentials',
    '.aws/credentials',
    'credentials.json',
    'creds.txt',
    'secrets.yaml',
    '.streamlit/secrets.toml',
    '.netrc',
    '.git-credentials',
  ])('%s is refused by name', (path) => {
    expect(secretName(path)).toBeDefined();
  });

  it.each([
    '.env.example',
    '.env.sample',
    '.env.template',
    'config/.env.dist',
    'id_rsa.pub',
    'src/keys.ts',
    'src/credentials.ts',
    'docs/credentials.md',
    'src/secrets.py',
    'src/id_generator.ts',
    'identity.ts',
    'keyboard.key.ts',
    'README.md',
    'environment.ts',
    'config/credentials.yml.enc',
  ])('%s is honest work, not refused by name', (path) => {
    expect(secretName(path)).toBeUndefined();
  });
});

describe('secretContent: token shapes and key blocks', () => {
  it.each(Object.entries(TOKENS))('%s is found inside ordinary text', (_, token) => {
    expect(secretContent(`const config = {\n  apiKey: "${token}",\n};\n`)).toBeDefined();
    expect(secretContent(`TOKEN=${token}\n`)).toBeDefined();
  });

  it('a private key block, also escaped inside a JSON string (a service-account file)', () => {
    expect(secretContent(PRIVATE_KEY)).toMatch(/private key/);
    const json = JSON.stringify({ type: 'service_account', private_key: PRIVATE_KEY });
    expect(secretContent(json)).toMatch(/private key/);
  });

  it('honest text: placeholders, documented examples, a key header with no key, code about keys', () => {
    for (const text of [
      'aws_access_key_id = AKIA' + 'IOSFODNN7EXAMPLE\n',
      'GITHUB_TOKEN=gh' + 'p_' + 'x'.repeat(36) + '\n',
      'OPENAI_API_KEY=sk-' + 'proj-' + '.'.repeat(3) + '\n',
      'const HEADER = "-----BEGIN ' + 'PRIVATE KEY-----";\n',
      "if (line.startsWith('-----BEGIN')) parsePem(line);\n",
      'const skip = "sk-learn is a library";\n',
      'import { createHash } from "node:crypto";\n',
    ])
      expect(secretContent(text), text).toBeUndefined();
  });

  it('every shape starts with its anchor, so the one quick pass over a file misses no match', () => {
    // The quick pass finds nothing, so no shape runs: sound only if each shape's every match
    // holds its anchor, which is so when the shape's pattern begins with the anchor's source.
    for (const { anchor, source } of TOKEN_ANCHORS) {
      expect(source.replace(/^\\b/, '').startsWith(anchor), source).toBe(true);
      expect(topLevelAlternation(source), source).toBe(false);
      expect(() => new RegExp(anchor)).not.toThrow();
    }
    expect(TOKEN_ANCHORS.length).toBeGreaterThanOrEqual(13);
  });

  it('a token after a near miss of another anchor is still found', () => {
    const text = 'sk-learn, AIz, gh_, npm ' + 'x'.repeat(5000) + '\n' + TOKENS['stripe'] + '\n';
    expect(secretContent(text)).toMatch(/Stripe/);
  });

  it('a streamed scan sees a token split across two chunks', () => {
    const text = 'x'.repeat(1000) + ' ' + TOKENS['github'] + '\n';
    const cut = 1010;
    const scan = new ContentScan();
    scan.push(Buffer.from(text.slice(0, cut)));
    expect(scan.finding).toBeUndefined();
    scan.push(Buffer.from(text.slice(cut)));
    expect(scan.finding).toMatch(/GitHub/);
    expect(SCAN_OVERLAP).toBeGreaterThan(200);
  });

  it('binary bytes never throw, and a key among them is still found', () => {
    const scan = new ContentScan();
    scan.push(new Uint8Array([0, 255, 254, 0x80, 10]));
    scan.push(Buffer.from(PRIVATE_KEY));
    expect(scan.finding).toBeDefined();
  });
});

/** Whether a pattern source has a `|` outside every group and class (then a prefix proves nothing). */
function topLevelAlternation(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}
