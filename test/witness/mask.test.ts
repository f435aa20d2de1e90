/**
 * Masking secrets in record-time witness output: which variables count as secrets, and that
 * every occurrence — also one cut in half by the output cap — is replaced before storing.
 */
import { describe, expect, it } from 'vitest';
import {
  isSecretName,
  MASK,
  maskSecrets,
  MIN_SECRET_LENGTH,
  secretsOf,
} from '../../src/witness/index.js';

const mask = (text: string, env: Record<string, string>, truncated = false) => {
  const result = maskSecrets(Buffer.from(text), secretsOf(env), truncated);
  return { text: result.bytes.toString(), names: result.names };
};

describe('isSecretName', () => {
  it.each([
    'GITHUB_TOKEN',
    'NPM_TOKEN',
    'CI_JOB_TOKEN',
    'MYTOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'DB_PASSWORD',
    'db_passwd',
    'GPG_PASSPHRASE',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'STRIPE_API_KEY',
    'OPENAI_APIKEY',
    'SSH_PRIVATE_KEY',
    'KEY',
    'DEPLOY_KEY',
    'REDIS_PASS',
    'GH_PAT',
    'npm_config__auth',
    'SESSION_COOKIE',
  ])('%s is a secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'GIT_AUTHOR_NAME', 'KEYBOARD', 'MONKEY_BUSINESS', 'PWD', 'PASSAGE'])(
    '%s is not a secret',
    (name) => {
      expect(isSecretName(name)).toBe(false);
    },
  );
});

describe('maskSecrets', () => {
  it('replaces every occurrence of a secret value and names the variable', () => {
    const out = mask('token=hunter2-hunter2\nagain: hunter2-hunter2.\n', {
      MY_TOKEN: 'hunter2-hunter2',
      HOME: '/home/x',
    });
    expect(out.text).toBe(`token=${MASK}\nagain: ${MASK}.\n`);
    expect(out.names).toEqual(['MY_TOKEN']);
  });

  it(`leaves values shorter than ${MIN_SECRET_LENGTH} characters alone, so KEY=1 does not mask every 1`, () => {
    const out = mask('1 2 3 short1', { KEY: '1', API_KEY: 'short1' });
    expect(out.text).toBe('1 2 3 short1');
    expect(out.names).toEqual([]);
  });

  it('masks a value containing another whole, and lists both only when both occur', () => {
    const out = mask('A=abcdefgh-ijklmnop B=abcdefgh', {
      LONG_SECRET: 'abcdefgh-ijklmnop',
      SHORT_SECRET: 'abcdefgh',
    });
    expect(out.text).toBe(`A=${MASK} B=${MASK}`);
    expect(out.names).toEqual(['LONG_SECRET', 'SHORT_SECRET']);
  });

  it('masks each line of a multi-line value (a PEM key printed with CRLF endings)', () => {
    const key = '-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END KEY-----';
    const printed = key.replace(/\n/g, '\r\n');
    const out = mask(`${printed}\r\n`, { SSH_PRIVATE_KEY: key });
    expect(out.text).not.toContain('MIIEvQIBADANBgkqhkiG9w0B');
    expect(out.text).not.toContain('BEGIN KEY');
    expect(out.names).toEqual(['SSH_PRIVATE_KEY']);
  });

  it('masks the start of a secret that the output cap cut off at the end', () => {
    const out = mask('log line\nsecret: hunter2-hun', { GH_TOKEN: 'hunter2-hunter2' }, true);
    expect(out.text).toBe(`log line\nsecret: ${MASK}`);
    expect(out.names).toEqual(['GH_TOKEN']);
    // Not truncated: the same bytes are not a secret's start, just text.
    expect(mask('secret: hunter2-hun', { GH_TOKEN: 'hunter2-hunter2' }).text).toBe(
      'secret: hunter2-hun',
    );
  });

  it('works on binary output and returns the bytes unchanged when nothing matches', () => {
    const bytes = Buffer.from([0, 0xff, 0xfe, 0x41]);
    const result = maskSecrets(bytes, secretsOf({ MY_TOKEN: 'hunter2-hunter2' }));
    expect(result.bytes.equals(bytes)).toBe(true);
    expect(result.names).toEqual([]);
  });
});

describe('maskSecrets: encoded forms of a secret', () => {
  const secret = 'hunter2-ledger/secret+value?&=42';
  const env = { MY_API_TOKEN: secret };
  const bytes = Buffer.from(secret);
  /** Whether any trace of the secret survives: as itself, or decoded from what is left. */
  const leaks = (text: string): boolean => {
    if (text.includes(secret)) return true;
    for (const run of text.replace(/\r?\n/g, '').match(/[A-Za-z0-9+/_=-]{12,}/g) ?? [])
      for (const decoded of [
        Buffer.from(run, 'base64'),
        Buffer.from(run.slice(1), 'base64'),
        Buffer.from(run.slice(2), 'base64'),
        Buffer.from(run.slice(3), 'base64'),
        Buffer.from(run, 'hex'),
      ])
        if (decoded.includes(bytes.subarray(4, bytes.length - 4))) return true;
    try {
      if (decodeURIComponent(text.replace(/\+/g, ' ')).includes(secret)) return true;
    } catch {
      // Not URL-encoded text.
    }
    return false;
  };

  it.each([
    ['base64', bytes.toString('base64')],
    ['base64url', bytes.toString('base64url')],
    ['hex', bytes.toString('hex')],
    ['HEX', bytes.toString('hex').toUpperCase()],
    ['URL-encoded', encodeURIComponent(secret)],
    [
      'URL-encoded, lower-case hex',
      encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ],
    ['form-encoded', new URLSearchParams({ k: secret }).toString().slice(2)],
    ['URL-encoded, every byte', bytes.toString('hex').replace(/(..)/g, '%$1')],
    ['base64 wrapped at 8 columns', bytes.toString('base64').replace(/(.{8})/g, '$1\n')],
    ['hex wrapped like xxd -p', bytes.toString('hex').replace(/(.{12})/g, '$1\n')],
  ])('masks the %s form and names the variable', (_form, encoded) => {
    const out = mask(`value: ${encoded}\n`, env);
    expect(leaks(out.text), out.text).toBe(false);
    expect(out.text).toContain(MASK);
    expect(out.names).toEqual(['MY_API_TOKEN']);
  });

  it.each([0, 1, 2, 3, 4, 5])(
    'masks a secret inside a longer base64 blob, %i byte(s) after a 3-byte boundary',
    (offset) => {
      const blob = Buffer.concat([
        Buffer.from('x'.repeat(30 + offset)),
        bytes,
        Buffer.from('trailing data that is not secret'),
      ]);
      for (const encoded of [blob.toString('base64'), blob.toString('base64url')]) {
        const out = mask(`blob=${encoded}\n`, env);
        expect(leaks(out.text), out.text).toBe(false);
        expect(out.names).toEqual(['MY_API_TOKEN']);
      }
    },
  );

  it('leaves output alone that holds no form of the secret', () => {
    const text = `${Buffer.from('an ordinary build log').toString('base64')} 0123456789abcdef\n`;
    expect(mask(text, env)).toEqual({ text, names: [] });
  });
});
