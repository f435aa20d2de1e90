import { describe, expect, it } from 'vitest';
import {
  isRecordId,
  parseRecordIdPrefix,
  sha256Hex,
  toRecordId,
} from '../../src/canonical/index.js';
import { portableSha256Hex } from '../../src/canonical/ids.js';

describe('ids', () => {
  it('hashes with sha256 (FIPS 180-2 "abc" and empty vectors)', () => {
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(toRecordId(new Uint8Array(0))).toBe(
      'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it("Node's hashes and noble's give the same ids (every length around SHA-256's block edges, and a large record)", () => {
    for (let length = 0; length < 300; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + length) & 0xff);
      expect(sha256Hex(bytes)).toBe(portableSha256Hex(bytes));
    }
    const large = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) & 0xff);
    expect(sha256Hex(large)).toBe(portableSha256Hex(large));
  });

  it.each([
    ['sha256:' + 'a'.repeat(64), true],
    ['sha256:' + 'A'.repeat(64), false],
    ['sha256:' + 'a'.repeat(63), false],
    ['sha256:' + 'a'.repeat(65), false],
    ['a'.repeat(64), false],
    ['sha1:' + 'a'.repeat(40), false],
    ['sha256:' + 'g'.repeat(64), false],
    [' sha256:' + 'a'.repeat(64), false],
    [42, false],
  ])('isRecordId(%s) is %s', (s, ok) => {
    expect(isRecordId(s)).toBe(ok);
  });

  it.each([
    ['sha256:abcd', 'abcd'],
    ['ABCD12', 'abcd12'],
    ['sha256:' + 'F'.repeat(64), 'f'.repeat(64)],
    ['abc', undefined],
    ['sha256:abc', undefined],
    ['sha256:', undefined],
    ['', undefined],
    ['abcg', undefined],
    ['a'.repeat(65), undefined],
    ['sha1:abcd', undefined],
    ['HEAD', undefined],
  ])('parseRecordIdPrefix(%s) is %s', (s, want) => {
    expect(parseRecordIdPrefix(s)).toBe(want);
  });
});
