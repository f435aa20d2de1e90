/**
 * An unencrypted ed25519 key made by the real `ssh-keygen`, for tests that sign records, steps
 * or attestations, and its public half as an allowed_signers line wants it (`type base64`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function sshKeyPair(dir: string, name: string): { key: string; pub: string } {
  const key = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
  return { key, pub: readFileSync(`${key}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ') };
}
