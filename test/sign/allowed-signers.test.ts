import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findSigner,
  isAllowedSigner,
  matchPattern,
  parseTime,
} from '../../src/sign/allowed-signers.js';
import { parseAllowedSigners } from '../../src/sign/index.js';
import { keygen, sshSign, sshVerify, tempDir, type Key } from './ssh.js';

const ED = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK6MmNH2OKNQVFMJ3t16oQqSW1pCn+qLpK9WUcpYiXLc';
const OTHER = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ7pt1rzYuMYnvCK8q9Fx8dpRJplB6o9M2whrdWH7Ai9';
const AT = new Date('2025-06-01T00:00:00Z');

describe('parseAllowedSigners', () => {
  it('parses principals, options, key and comment; skips comments and blank lines', () => {
    const { entries, problems } = parseAllowedSigners(
      [
        '# team keys',
        '',
        '   ',
        `alice@example.com ${ED} alice laptop`,
        `  bob@example.com,*@ops.example.com namespaces="ledger,git",valid-after="20240101Z",valid-before="20260101Z" ${ED}`,
        `"carol smith" ${OTHER}`,
      ].join('\n'),
    );
    expect(problems).toEqual([]);
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({
      line: 4,
      principals: 'alice@example.com',
      certAuthority: false,
      keyType: 'ssh-ed25519',
      publicKey: ED,
      comment: 'alice laptop',
    });
    expect(entries[0]).not.toHaveProperty('namespaces');
    expect(entries[1]).toMatchObject({
      line: 5,
      principals: 'bob@example.com,*@ops.example.com',
      namespaces: 'ledger,git',
      validAfter: new Date('2024-01-01T00:00:00Z'),
      validBefore: new Date('2026-01-01T00:00:00Z'),
    });
    expect(entries[2]).toMatchObject({ line: 6, principals: 'carol smith', publicKey: OTHER });
  });

  it('option names are case-insensitive and values unescape \\"', () => {
    const { entries, problems } = parseAllowedSigners(`a NAMESPACES="x\\"y" ${ED}`);
    expect(problems).toEqual([]);
    expect(entries[0]?.namespaces).toBe('x"y');
  });

  it('reports every malformed line with its line number and keeps the good ones', () => {
    const { entries, problems } = parseAllowedSigners(
      [
        `good ${ED}`, // 1
        'only-a-principal', // 2
        `bad namespaces=ledger ${ED}`, // 3: OpenSSH requires quotes
        `bad frobnicate ${ED}`, // 4
        `bad valid-after="2024-01-01" ${ED}`, // 5
        `bad valid-after="20250101Z",valid-before="20240101Z" ${ED}`, // 6
        'bad ssh-ed25519 not!base64', // 7
        `bad ssh-rsa ${ED.split(' ')[1]}`, // 8: type mismatch
        'bad ssh-ed25519', // 9
        `bad namespaces="a",namespaces="b" ${ED}`, // 10
        `"unterminated ${ED}`, // 11
        `bad namespaces="open ${ED}`, // 12
        `bad valid-before="20250230Z" ${ED}`, // 13: no Feb 30
        `bad ssh-foo AAAA`, // 14
        `also-good ${OTHER}`, // 15
      ].join('\n'),
    );
    expect(entries.map((entry) => entry.line)).toEqual([1, 15]);
    expect(problems.map((problem) => problem.line)).toEqual([
      2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    ]);
    for (const problem of problems) expect(problem.message).not.toBe('');
    expect(problems.find((p) => p.line === 8)?.message).toMatch(/mismatch/);
    expect(problems.find((p) => p.line === 14)?.message).toMatch(/unsupported key type ssh-foo/);
  });

  it('parses cert-authority but reports it and never trusts it', () => {
    const { entries, problems } = parseAllowedSigners(`*@example.com cert-authority ${ED}`);
    expect(entries[0]?.certAuthority).toBe(true);
    expect(problems).toEqual([{ line: 1, message: expect.stringMatching(/cert-authority/) }]);
    expect(findSigner(entries, ED, 'ledger', AT)).toBeUndefined();
    expect(isAllowedSigner(entries, 'a@example.com', ED, 'ledger', AT)).toBe(false);
  });

  it('accepts CRLF files', () => {
    const { entries, problems } = parseAllowedSigners(`a ${ED}\r\nb ${OTHER}\r\n`);
    expect(problems).toEqual([]);
    expect(entries.map((entry) => entry.principals)).toEqual(['a', 'b']);
    expect(entries[0]).not.toHaveProperty('comment');
  });
});

describe('findSigner and isAllowedSigner', () => {
  const { entries } = parseAllowedSigners(
    [
      `alice@example.com namespaces="ledger" ${ED}`,
      `old@example.com valid-before="20200101Z" ${ED}`,
      `future@example.com valid-after="20300101Z" ${ED}`,
      `*@ops.example.com,!mallory@ops.example.com namespaces="git,led?er" ${OTHER}`,
    ].join('\n'),
  );

  it('binds the key to the principal for an allowed namespace now', () => {
    expect(findSigner(entries, ED, 'ledger', AT)).toEqual({
      principal: 'alice@example.com',
      principals: ['alice@example.com'],
      lines: [1],
    });
    expect(findSigner(entries, `${ED} some comment`, 'ledger', AT)?.principal).toBe(
      'alice@example.com',
    );
  });

  it('applies the namespace restriction', () => {
    expect(findSigner(entries, ED, 'git', AT)).toBeUndefined();
    expect(findSigner(entries, OTHER, 'ledger', AT)?.principal).toBe(
      '*@ops.example.com,!mallory@ops.example.com',
    );
    expect(findSigner(entries, OTHER, 'file', AT)).toBeUndefined();
  });

  it('applies validity windows, both bounds inclusive to the second', () => {
    expect(findSigner(entries, ED, 'x', new Date('2019-12-31T23:59:59Z'))?.principal).toBe(
      'old@example.com',
    );
    expect(findSigner(entries, ED, 'x', new Date('2029-12-31T23:59:59Z'))).toBeUndefined();
    expect(findSigner(entries, ED, 'ledger', new Date('2019-06-01Z'))?.principals).toEqual([
      'alice@example.com',
      'old@example.com',
    ]);
    expect(findSigner(entries, ED, 'git', new Date('2020-01-01T00:00:00.999Z'))?.principal).toBe(
      'old@example.com',
    );
    expect(findSigner(entries, ED, 'git', new Date('2020-01-01T00:00:01Z'))).toBeUndefined();
    expect(findSigner(entries, ED, 'git', new Date('2030-01-01T00:00:00Z'))?.principal).toBe(
      'future@example.com',
    );
  });

  it('matches principals with wildcards and negation', () => {
    expect(isAllowedSigner(entries, 'bob@ops.example.com', OTHER, 'ledger', AT)).toBe(true);
    expect(isAllowedSigner(entries, 'mallory@ops.example.com', OTHER, 'ledger', AT)).toBe(false);
    expect(isAllowedSigner(entries, 'bob@dev.example.com', OTHER, 'ledger', AT)).toBe(false);
    expect(isAllowedSigner(entries, 'alice@example.com', OTHER, 'ledger', AT)).toBe(false);
    expect(isAllowedSigner(entries, 'ALICE@example.com', ED, 'ledger', AT)).toBe(false);
  });

  // Red team, round eight: C cut the name at the NUL, so a forged producer
  // "alice@example.com\0 and lead@example.com (co-signed)" matched alice's line and the whole
  // name was reported as the verified signer. ssh-keygen can never be asked about such a name.
  it('a principal with a NUL matches no line, whatever comes before it', () => {
    expect(isAllowedSigner(entries, 'alice@example.com', ED, 'ledger', AT)).toBe(true);
    expect(
      isAllowedSigner(entries, 'alice@example.com\0 and lead@example.com', ED, 'ledger', AT),
    ).toBe(false);
    expect(isAllowedSigner(entries, 'bob@ops.example.com\0', OTHER, 'ledger', AT)).toBe(false);
  });

  it('a malformed public key argument is INVALID_INPUT', () => {
    expect(() => findSigner(entries, 'nonsense', 'ledger', AT)).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });
});

describe('patterns and times', () => {
  it('glob matching', () => {
    expect(matchPattern('abc', 'a?c')).toBe(true);
    expect(matchPattern('abc', '*')).toBe(true);
    expect(matchPattern('', '*')).toBe(true);
    expect(matchPattern('', '?')).toBe(false);
    expect(matchPattern('a@b.c', '*@*.c')).toBe(true);
    expect(matchPattern('abcd', 'a*c')).toBe(false);
    // linear, not exponential
    expect(matchPattern('a'.repeat(5000), `${'*a'.repeat(50)}b`)).toBe(false);
  });

  it('times: UTC with Z/UTC, local otherwise, as ssh-keygen', () => {
    expect(parseTime('20240229Z')).toEqual(new Date('2024-02-29T00:00:00Z'));
    expect(parseTime('202402291230UTC')).toEqual(new Date('2024-02-29T12:30:00Z'));
    expect(parseTime('20240229123045z')).toEqual(new Date('2024-02-29T12:30:45Z'));
    expect(parseTime('20240229')).toEqual(new Date(2024, 1, 29));
    for (const bad of ['2023022', '20230229Z', '20241301', '2024010100', '20240101T00', '']) {
      expect(parseTime(bad)).toBeUndefined();
    }
  });
});

describe('agrees with ssh-keygen -Y verify', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let key: Key;
  const sigs: Record<string, string> = {};
  const message = new TextEncoder().encode('sha256:00');

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    key = await keygen(dir, 'k', 'ed25519');
    for (const ns of ['ledger', 'git', 'file'])
      sigs[ns] = await sshSign(dir, key.path, ns, message);
  });
  afterAll(() => cleanup());

  const lines = (pub: string) =>
    [
      `# comment`,
      `alice@example.com namespaces="ledger" ${pub}`,
      `*@ops.example.com,!eve@ops.example.com namespaces="g?t,le*" valid-after="20240101Z" ${pub}`,
      `"old timer" valid-before="20200101120000Z" ${pub}`,
      `ca@example.com cert-authority ${pub}`,
      `broken namespaces=ledger ${pub}`,
    ].join('\n');
  const principals = [
    'alice@example.com',
    'bob@ops.example.com',
    'eve@ops.example.com',
    'old timer',
    'ca@example.com',
    'broken',
    'nobody',
  ];
  const times = ['20190101Z', '20200101120000Z', '20200101120001Z', '20250101Z'];

  it('for every principal × namespace × time', async () => {
    const { entries } = parseAllowedSigners(lines(key.publicKey));
    const file = lines(key.publicKey);
    let checked = 0;
    for (const principal of principals) {
      for (const ns of ['ledger', 'git', 'file']) {
        for (const time of times) {
          const theirs = await sshVerify(dir, file, principal, ns, sigs[ns]!, message, [
            '-O',
            `verify-time=${time}`,
          ]);
          const ours = isAllowedSigner(entries, principal, key.publicKey, ns, parseTime(time)!);
          expect({ principal, ns, time, ok: ours }).toEqual({ principal, ns, time, ok: theirs });
          checked++;
        }
      }
    }
    expect(checked).toBe(principals.length * 3 * times.length);
  });
});
