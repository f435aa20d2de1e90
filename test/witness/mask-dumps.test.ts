/**
 * Masking the forms of a secret that dump tools print (red-team leftovers): `xxd` (hex in
 * groups plus an ASCII column that splits the value over lines), `od -An -tx1`, `od -c`,
 * `base32` (also wrapped), `rev`, and a value (or its base64) spelt out with spaces. The tools run as real
 * child processes where installed; where one is missing its exact output format is produced
 * here, so nothing is skipped.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MASK, maskSecrets, secretsOf } from '../../src/witness/index.js';

const secret = 'hunter2-ledger/secret+value?&=42';
const env = { MY_API_TOKEN: secret };
const secrets = secretsOf(env);

const installed = (tool: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).status === 0;

/** xxd's plain format: offset, 8 groups of 4 hex digits, two spaces, the ASCII column. */
function xxdFormat(input: Buffer): string {
  let out = '';
  for (let at = 0; at < input.length; at += 16) {
    const line = input.subarray(at, at + 16);
    const hex = (line.toString('hex').match(/.{1,4}/g) ?? []).join(' ');
    const ascii = [...line].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.'));
    out += `${at.toString(16).padStart(8, '0')}: ${hex.padEnd(39)}  ${ascii.join('')}\n`;
  }
  return out;
}

/** hexdump -C: offset, 16 bytes in two halves of 8, the ASCII column between bars. */
function hexdumpFormat(input: Buffer): string {
  let out = '';
  for (let at = 0; at < input.length; at += 16) {
    const line = input.subarray(at, at + 16);
    const bytes = [...line].map((b) => b.toString(16).padStart(2, '0'));
    const hex = `${bytes.slice(0, 8).join(' ')}  ${bytes.slice(8).join(' ')}`.trimEnd();
    const ascii = [...line].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.'));
    out += `${at.toString(16).padStart(8, '0')}  ${hex.padEnd(48)}  |${ascii.join('')}|\n`;
  }
  return `${out}${input.length.toString(16).padStart(8, '0')}\n`;
}

const fallbacks: Record<string, (input: Buffer) => string> = {
  xxd: xxdFormat,
  hexdump: hexdumpFormat,
  rev: (input) =>
    input
      .toString()
      .split('\n')
      .map((line) => [...line].reverse().join(''))
      .join('\n'),
};

/** The tool's output for `input`: the real tool where installed, else its format built here. */
function run(tool: string, args: string[], input: string): string {
  if (!installed(tool)) {
    const fallback = fallbacks[tool];
    if (fallback === undefined) throw new Error(`${tool} (coreutils) is not installed`);
    return fallback(Buffer.from(input));
  }
  const result = spawnSync(tool, args, { input, encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let at = 0; at < bits.length; at += 5)
    out += alphabet[parseInt(bits.slice(at, at + 5).padEnd(5, '0'), 2)];
  return out;
}

/** Whether 8 consecutive bytes of the secret can still be read from the text, in any form. */
function leaks(text: string): string | undefined {
  const flat = text.replace(/[\s:]/g, '');
  const lower = flat.toLowerCase();
  const upper = flat.toUpperCase();
  const reversed = [...flat].reverse().join('');
  for (let at = 0; at + 8 <= secret.length; at++) {
    const chunk = secret.slice(at, at + 8);
    if (flat.includes(chunk) || reversed.includes(chunk)) return `raw ${chunk}`;
    if (lower.includes(Buffer.from(chunk).toString('hex'))) return `hex ${chunk}`;
  }
  // Base32 of the secret at each alignment: 8 characters hold 5 bytes.
  for (let offset = 0; offset < 5; offset++) {
    const form = base32(Buffer.concat([Buffer.alloc(offset), Buffer.from(secret)]));
    for (let at = 8; at + 16 <= form.length - 8; at += 8)
      if (upper.includes(form.slice(at, at + 16))) return `base32 ${form.slice(at, at + 16)}`;
  }
  // Base64 and base64url at each alignment: 4 characters hold 3 bytes.
  for (let offset = 0; offset < 3; offset++)
    for (const encoding of ['base64', 'base64url'] as const) {
      const form = Buffer.concat([Buffer.alloc(offset), Buffer.from(secret)]).toString(encoding);
      for (let at = 4; at + 12 <= form.length - 4; at += 4)
        if (flat.includes(form.slice(at, at + 12))) return `${encoding} ${form.slice(at, at + 12)}`;
    }
  return undefined;
}

const mask = (text: string) => {
  const result = maskSecrets(Buffer.from(text, 'latin1'), secrets);
  return { text: result.bytes.toString('latin1'), names: result.names };
};

describe('maskSecrets: forms printed by dump tools', () => {
  const input = `id=${secret}\n`;
  const cases: [string, () => string][] = [
    ['xxd', () => run('xxd', [], input)],
    ['xxd -g1 (one byte per group)', () => run('xxd', ['-g1'], input)],
    ['hexdump -C', () => run('hexdump', ['-C'], input)],
    ['od -An -tx1', () => run('od', ['-An', '-tx1'], input)],
    ['od -tx1 (with offsets)', () => run('od', ['-tx1'], input)],
    ['od -c', () => run('od', ['-c'], input)],
    ['base32', () => run('base32', [], input)],
    ['base32 -w 20 (wrapped)', () => run('base32', ['-w', '20'], input)],
    [
      'base32, a long value wrapped at 76 columns',
      () => run('base32', [], `${'x'.repeat(50)}${input}`),
    ],
    ['rev', () => run('rev', [], input)],
    ['letter-spacing', () => `${[...secret].join(' ')}\n`],
    [
      'base64 spread out with spaces',
      () => `${[...run('base64', ['-w', '0'], input).trim()].join(' ')}\n`,
    ],
    [
      'base64url one character per line, inside a longer blob',
      () => `${[...Buffer.from(`xy${input}`).toString('base64url')].join('\n')}\n`,
    ],
    [
      'hex bytes separated by colons',
      () =>
        `${Buffer.from(secret)
          .toString('hex')
          .replace(/(..)(?!$)/g, '$1:')}\n`,
    ],
  ];
  it.each(cases)('masks the secret in %s output and names the variable', (_tool, produce) => {
    const printed = produce();
    expect(leaks(printed), 'the unmasked output holds the secret').toBeDefined();
    const out = mask(printed);
    expect(leaks(out.text), out.text).toBeUndefined();
    expect(out.text).toContain(MASK);
    expect(out.names).toEqual(['MY_API_TOKEN']);
  });

  it('builds the same bytes as xxd and hexdump -C where they are installed (so a missing tool tests the same format)', () => {
    const sample = Buffer.from(`id=${secret}\n\u0000\u0001 tail`);
    for (const [tool, args] of [
      ['xxd', []],
      ['hexdump', ['-C']],
    ] as const) {
      if (!installed(tool)) continue;
      const real = spawnSync(tool, args, { input: sample, encoding: 'latin1' }).stdout;
      expect(fallbacks[tool]!(sample), tool).toBe(real);
    }
  });

  it('keeps the shape of an xxd dump: offsets and line breaks stay', () => {
    const printed = run('xxd', [], `before ${secret} after, and more text\n`);
    const out = mask(printed);
    expect(out.text.split('\n').length).toBe(printed.split('\n').length);
    for (const [index, line] of out.text.split('\n').entries())
      expect(line.slice(0, 9)).toBe(printed.split('\n')[index]!.slice(0, 9));
    expect(leaks(out.text), out.text).toBeUndefined();
  });

  it('leaves honest output alone: a test log, and dumps of other data', () => {
    const other = 'an ordinary build log line, nothing secret in it at all\n';
    const log = [
      ' RUN  v1.6.0 /home/user/project',
      ' ✓ test/a.test.ts (12 tests) 34ms',
      ' ✓ test/b.test.ts > hunter2 ledger secret value (3 tests) 5ms',
      ' Test Files  2 passed (2)',
      '      Tests  15 passed (15)',
      '   Duration  1.02s (transform 54ms, setup 0ms, collect 80ms, tests 39ms)',
      '',
    ].join('\n');
    for (const text of [
      log,
      run('xxd', [], other),
      run('od', ['-c'], other),
      run('od', ['-An', '-tx1'], other),
      run('base32', [], other),
      run('rev', [], other),
    ]) {
      const bytes = Buffer.from(text, text === log ? 'utf8' : 'latin1');
      const result = maskSecrets(bytes, secrets);
      expect(result.bytes.equals(bytes), result.bytes.toString()).toBe(true);
      expect(result.names).toEqual([]);
    }
  });

  it('masks a secret at the end of a multi-megabyte od dump, in one linear pass', () => {
    const filler = Buffer.alloc(1024 * 1024, 'build output line\n');
    const printed = run('od', ['-An', '-tx1'], `${filler.toString()}${secret}\n`);
    const out = mask(printed);
    expect(leaks(out.text.slice(-2000)), out.text.slice(-2000)).toBeUndefined();
    expect(out.names).toEqual(['MY_API_TOKEN']);
    expect(out.text.length).toBeGreaterThan(printed.length - 1000);
  });

  it('masks od -c escapes: a secret with a tab, a control byte and non-ASCII letters', () => {
    // od -c prints these as \t, 001 and octal pairs (303 244 for ä): never as themselves.
    const odd = 'pässwörd\tLedger\u0001Tok3n-42';
    const oddSecrets = secretsOf({ MY_API_TOKEN: odd });
    if (!installed('od')) throw new Error('od (coreutils) is not installed');
    const printed = spawnSync('od', ['-c'], {
      input: Buffer.from(`id=${odd}\n`),
      encoding: 'latin1',
    }).stdout;
    const flat = (text: string) => text.replace(/^[0-7]+/gm, '').replace(/[\s:]+/g, '');
    for (const piece of ['p303244ssw', 'Ledger001Tok3n', 'rd\\tLedger'])
      expect(flat(printed), 'the unmasked output holds the value').toContain(piece);
    const result = maskSecrets(Buffer.from(printed, 'latin1'), oddSecrets);
    const out = result.bytes.toString('latin1');
    for (const piece of ['p303244ssw', 'Ledger001Tok3n', 'rd\\tLedger', 'Tok3n-42'])
      expect(flat(out), out).not.toContain(piece);
    expect(out).toContain(MASK);
    expect(result.names).toEqual(['MY_API_TOKEN']);
  });
});
