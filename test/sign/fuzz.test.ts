import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLedgerError } from '../../src/model/errors.js';
import { parseAllowedSigners } from '../../src/sign/allowed-signers.js';
import { parsePublicKeyBlob } from '../../src/sign/keys.js';
import { armorSignature, dearmorSignature, verifySignature } from '../../src/sign/sshsig.js';

const RUNS = { numRuns: 10_000 };
const MESSAGE = new TextEncoder().encode(
  'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
);
const SIGNATURE = `-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgroyY0fY4o1BUUwne3XqhCpJbWk
Kf6oukr1ZRyliJctwAAAAGbGVkZ2VyAAAAAAAAAAZzaGE1MTIAAABTAAAAC3NzaC1lZDI1
NTE5AAAAQL2+aayspXrud+jtEpfFHwtYZmUOMwUlrR8xRGLxEsDKseh96euXy8g9scBNC/
iRG/j5xdd3uwK3mrDLy0s1OwA=
-----END SSH SIGNATURE-----
`;
const BLOB = dearmorSignature(SIGNATURE);

/** Runs `parse`; passes when it returns or throws a LedgerError, fails on anything else. */
function cleanly(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch (error) {
    if (isLedgerError(error)) return true;
    throw error;
  }
}

describe('verifySignature never throws', () => {
  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expect(verifySignature(text, MESSAGE, 'ledger').ok).toBe(false);
      }),
      RUNS,
    );
  });

  it('on valid armor around arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 400 }), (bytes) => {
        expect(verifySignature(armorSignature(bytes), MESSAGE, 'ledger').ok).toBe(false);
      }),
      RUNS,
    );
  });

  it('on arbitrary bytes behind a real SSHSIG prefix (reaches the key and signature parsers)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 6, max: BLOB.length }),
        fc.uint8Array({ maxLength: 200 }),
        (cut, tail) => {
          const blob = new Uint8Array([...BLOB.subarray(0, cut), ...tail]);
          const result = verifySignature(armorSignature(blob), MESSAGE, 'ledger');
          if (result.ok) expect(blob).toEqual(BLOB);
        },
      ),
      RUNS,
    );
  });

  it('and any single changed byte of a valid signature makes it fail', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: BLOB.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        (index, delta) => {
          const blob = new Uint8Array(BLOB);
          blob[index] = (blob[index]! + delta) & 0xff;
          expect(verifySignature(armorSignature(blob), MESSAGE, 'ledger').ok).toBe(false);
        },
      ),
      RUNS,
    );
  });
});

describe('parsers end in a value or a LedgerError', () => {
  it('parseAllowedSigners on arbitrary text never throws', () => {
    const token = fc.constantFrom(
      'alice',
      '"a b"',
      '*',
      '!x',
      'namespaces="ledger"',
      'valid-after="20240101Z"',
      'valid-before="2024"',
      'cert-authority',
      ',',
      '"',
      '\\"',
      'ssh-ed25519',
      'ssh-rsa',
      'AAAAC3NzaC1lZDI1NTE5AAAAIK6MmNH2OKNQVFMJ3t16oQqSW1pCn+qLpK9WUcpYiXLc',
      'AAAA',
      '#',
      ' ',
      '\t',
      '\n',
      '\r\n',
    );
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.array(token, { maxLength: 30 }).map((tokens) => tokens.join('')),
    );
    fc.assert(
      fc.property(text, (input) => {
        const { entries, problems } = parseAllowedSigners(input);
        for (const entry of entries) expect(entry.line).toBeGreaterThan(0);
        for (const problem of problems) expect(typeof problem.message).toBe('string');
      }),
      RUNS,
    );
  });

  it('parsePublicKeyBlob on arbitrary bytes', () => {
    const prefixed = (prefix: number[]) =>
      fc.uint8Array({ maxLength: 300 }).map((bytes) => new Uint8Array([...prefix, ...bytes]));
    const blob = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      prefixed([0, 0, 0, 11, ...Buffer.from('ssh-ed25519')]),
      prefixed([0, 0, 0, 7, ...Buffer.from('ssh-rsa')]),
      prefixed([0, 0, 0, 19, ...Buffer.from('ecdsa-sha2-nistp256')]),
      prefixed([0, 0, 0, 26, ...Buffer.from('sk-ssh-ed25519@openssh.com')]),
      prefixed([0, 0, 0, 34, ...Buffer.from('sk-ecdsa-sha2-nistp256@openssh.com')]),
      prefixed([12]),
      prefixed([14]),
    );
    fc.assert(
      fc.property(blob, (bytes) => {
        cleanly(() => parsePublicKeyBlob(bytes));
        return true;
      }),
      RUNS,
    );
  });
});
