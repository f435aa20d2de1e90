/**
 * Public key lines and blobs, as allowed_signers and git's `key::` literals spell them.
 */
import { describe, expect, it } from 'vitest';
import { formatPublicKey, parsePublicKeyLine } from '../../src/sign/index.js';

const ED = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK6MmNH2OKNQVFMJ3t16oQqSW1pCn+qLpK9WUcpYiXLc';

describe('public keys', () => {
  it('parses a line with comment and git key:: prefix', () => {
    expect(parsePublicKeyLine(`${ED} me@host`).comment).toBe('me@host');
    expect(formatPublicKey(parsePublicKeyLine(`key::${ED}`).blob)).toBe(ED);
  });

  it('rejects a type mismatch and bad base64 with INVALID_INPUT', () => {
    for (const bad of [ED.replace('ssh-ed25519', 'ssh-rsa'), 'ssh-ed25519 AAA*', 'ssh-ed25519']) {
      expect(() => parsePublicKeyLine(bad)).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT' }),
      );
    }
  });
});
