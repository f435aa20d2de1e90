/**
 * Principal patterns with negation, in allowed_signers and in the policy's roles, mean exactly
 * what they mean to `ssh-keygen -Y verify`: a table of patterns × principals against the real
 * ssh-keygen, and the two attacks through the real CLI.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSigner, isAllowedSigner, namedPrincipals } from '../../src/sign/allowed-signers.js';
import { judgeSignature, parseTrust } from '../../src/verify/signatures.js';
import { cleanup, tempDir } from '../helpers/git.js';
import { allChecks, cli, makeUser, record, repoWithRecord, type User } from './helpers.js';

afterEach(cleanup);

function keypair(dir: string, name: string): { key: string; pub: string } {
  const key = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
  return { key, pub: readFileSync(`${key}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ') };
}

function policyFile(user: User, allowedSigners: string, producer: string[]): string {
  const allowed = join(user.home, 'allowed_signers');
  writeFileSync(allowed, allowedSigners);
  const policy = join(user.home, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: false, commands: [] },
      witnessTimeoutSeconds: 30,
      signatures: { allowedSigners: allowed, required: false, roles: { producer } },
    }),
  );
  return policy;
}

function sshVerifies(file: string, principal: string, sig: string, message: string): boolean {
  return (
    spawnSync(
      'ssh-keygen',
      ['-Y', 'verify', '-n', 'ledger', '-f', file, '-I', principal, '-s', sig],
      {
        input: message,
      },
    ).status === 0
  );
}

const producerCheck = (json: any, id: string) =>
  allChecks({ records: json.records.filter((r: any) => r.id === id) }).find(
    (c) => c.check === 'producer',
  );

describe('adversarial: signer patterns and negation, as ssh-keygen reads them', () => {
  it('allowed_signers `*@agents.example.com,!mallory@agents.example.com` and a policy role with `!mallory@…` — mallory is never a verified producer, as ssh-keygen -Y verify refuses her', async () => {
    const user = makeUser();
    const shared = keypair(user.home, 'agents');
    const own = keypair(user.home, 'mallory');
    const { dir } = await repoWithRecord(user);
    const signed = async (producer: string, key: string) =>
      (await record(user, dir, { status: 'success', producer, sign: true, signingKey: key })).id;
    const alice = await signed('alice@agents.example.com', shared.key);
    const mallory = await signed('mallory@agents.example.com', shared.key);
    const malloryOwn = await signed('mallory@agents.example.com', own.key);
    const lines =
      `*@agents.example.com,!mallory@agents.example.com namespaces="ledger" ${shared.pub}\n` +
      `mallory@agents.example.com namespaces="ledger" ${own.pub}\n`;
    const policy = policyFile(user, lines, ['*@agents.example.com', '!mallory@agents.example.com']);
    const r = await cli(user, dir, ['verify', '--policy', policy]);
    expect(producerCheck(r.json, alice)?.verdict).toBe('verified');
    expect(producerCheck(r.json, mallory)?.verdict).not.toBe('verified');
    expect(producerCheck(r.json, malloryOwn)?.verdict).not.toBe('verified');
    const shown = await cli(user, dir, ['show', mallory, '--policy', policy]);
    expect(shown.json.producer.status).toBe('claimed');

    // ssh-keygen agrees, over the very signatures ledger stored
    const file = join(user.home, 'allowed_signers');
    const sig = async (id: string) => {
      const path = join(tempDir(), 'sig');
      const armored =
        id === mallory ? shown : await cli(user, dir, ['show', id, '--policy', policy]);
      writeFileSync(path, armored.json.signatures[0].armored as string);
      return path;
    };
    expect(sshVerifies(file, 'alice@agents.example.com', await sig(alice), alice)).toBe(true);
    expect(sshVerifies(file, 'mallory@agents.example.com', await sig(mallory), mallory)).toBe(
      false,
    );
    // mallory's own key is in the file; only the policy's role excludes her (checked below as
    // an allowed_signers line, which is how the role list is read)
    const roleFile = join(tempDir(), 'role_as_allowed_signers');
    writeFileSync(
      roleFile,
      `*@agents.example.com,!mallory@agents.example.com namespaces="ledger" ${own.pub}\n`,
    );
    expect(
      sshVerifies(roleFile, 'mallory@agents.example.com', await sig(malloryOwn), malloryOwn),
    ).toBe(false);
  });

  it('a table of principal patterns × principals: allowed_signers matching, policy roles and find-principals agree with ssh-keygen', () => {
    const dir = tempDir();
    const { key, pub } = keypair(dir, 'k');
    const message = 'sha256:00';
    writeFileSync(join(dir, 'msg'), message);
    execFileSync('ssh-keygen', ['-q', '-Y', 'sign', '-n', 'ledger', '-f', key, join(dir, 'msg')]);
    const sig = join(dir, 'msg.sig');
    const armored = readFileSync(sig, 'utf8');
    const patterns = [
      '*@agents.example.com,!mallory@agents.example.com',
      '!mallory@agents.example.com,*@agents.example.com',
      'alice@x.com,bob@x.com',
      'a?ice@x.com',
      '*',
      '!*',
      '*,!*@evil.com',
      'ALICE@x.com',
      '?@x',
      '??@x',
      'a,,b',
      'a,',
      '!,*',
      '!!a,*',
      '*a*a*a*b',
      `*,${'y'.repeat(1030)}`,
      `${'y'.repeat(1022)}`,
      'carol smith,*@x.com',
    ];
    const principals = [
      'alice@agents.example.com',
      'mallory@agents.example.com',
      'MALLORY@agents.example.com',
      'alice@x.com',
      'ALICE@x.com',
      'bob@evil.com',
      'é@x',
      'e@x',
      'a',
      'b',
      '!a',
      'aaab',
      'carol smith',
      'y'.repeat(1022),
    ];
    const now = new Date();
    let compared = 0;
    for (const pattern of patterns) {
      const line = `${pattern.includes(' ') ? `"${pattern}"` : pattern} namespaces="ledger" ${pub}\n`;
      const file = join(dir, 'allowed_signers');
      writeFileSync(file, line);
      const { entries } = parseTrust(line, { required: false, now });
      // the role list, read as one pattern list, under a file that admits everyone
      const roleTrust = parseTrust(`* namespaces="ledger" ${pub}\n`, {
        required: false,
        roles: { producer: pattern.split(',') },
        now,
      });
      for (const principal of principals) {
        const theirs = sshVerifies(file, principal, sig, message);
        const ours = isAllowedSigner(entries, principal, pub, 'ledger', now);
        expect({ pattern, principal, allowed: ours }).toEqual({
          pattern,
          principal,
          allowed: theirs,
        });
        const role = judgeSignature(message, armored, roleTrust, 'producer', principal).verified;
        expect({ pattern, principal, role }).toEqual({ pattern, principal, role: theirs });
        compared++;
      }
      const found = spawnSync(
        'ssh-keygen',
        ['-Y', 'find-principals', '-n', 'ledger', '-f', file, '-s', sig],
        { encoding: 'utf8' },
      );
      const printed = found.status === 0 ? found.stdout.trimEnd().split('\n') : [];
      // ssh-keygen prints the first matching line's principals one per line, up to the first
      // empty item (strsep on ","), so print ours the same way
      const field = findSigner(entries, pub, 'ledger', now)?.principal.split(',') ?? [];
      const empty = field.indexOf('');
      const mine = empty < 0 ? field : field.slice(0, empty);
      expect({ pattern, principals: mine }).toEqual({ pattern, principals: printed });
      // every principal we would name as the signer, ssh-keygen accepts for this key
      for (const named of namedPrincipals(entries, pub, 'ledger', now))
        expect({ pattern, named, ok: sshVerifies(file, named, sig, message) }).toEqual({
          pattern,
          named,
          ok: true,
        });
    }
    expect(compared).toBe(patterns.length * principals.length);
  });
});
