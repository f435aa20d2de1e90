/**
 * A user as the attacks on record-time identity need one: `ledger.sign=true` and a real SSH key
 * as user.signingKey in the global git config (the documented setting), and a policy whose
 * allowed_signers trusts that key as alice@example.com, producer role.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome } from './env.js';
import { git } from './git.js';

/** A user whose global git config signs with alice's key and whose policy trusts alice. */
export function signingUser(): { home: string; env: Record<string, string>; key: string } {
  const user = makeHome();
  const key = join(user.home, '.ssh', 'id_ed25519');
  mkdirSync(join(user.home, '.ssh'), { recursive: true });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'alice', '-f', key]);
  const pub = readFileSync(`${key}.pub`, 'utf8').trim();
  const allowed = join(user.home, 'allowed_signers');
  writeFileSync(allowed, `alice@example.com namespaces="ledger" ${pub}\n`);
  const policy = join(user.home, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: false, commands: [] },
      witnessTimeoutSeconds: 30,
      signatures: {
        allowedSigners: allowed,
        required: false,
        roles: { producer: ['alice@example.com'] },
      },
    }),
  );
  const config = user.env.GIT_CONFIG_GLOBAL!;
  git(user.home, 'config', '--file', config, 'ledger.sign', 'true');
  git(user.home, 'config', '--file', config, 'user.signingKey', key);
  git(user.home, 'config', '--file', config, 'ledger.policy', policy);
  return { ...user, key };
}
