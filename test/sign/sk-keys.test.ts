/**
 * FIDO keys (`sk-ssh-ed25519@openssh.com`, `sk-ecdsa-sha2-nistp256@openssh.com`): ledger's
 * verifier accepts exactly what `ssh-keygen -Y verify -f allowed_signers -I principal -n ledger`
 * accepts. No authenticator is needed: OpenSSH's own test vectors (signed by ssh-keygen through
 * its sk-dummy authenticator), and a software signer (./sk-signer.ts) for every field a device
 * or an attacker controls — the flags (user presence is not checked by ssh-keygen -Y verify,
 * nor can an allowed_signers line ask for it), the counter, the application.
 *
 * Red team, round eight (repro-3): both key types were refused as "unsupported key type" while
 * ssh-keygen accepted their signatures, so `sign --signature` exited 2 and `record --sign` with
 * a FIDO key failed its own check after signing.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { record } from '../adversarial/helpers.js';
import { makeHome } from '../helpers/env.js';
import { cleanup as cleanupRepos, gitdir, runCli } from '../helpers/git.js';
import {
  armorSignature,
  dearmorSignature,
  isAllowedSigner,
  parseAllowedSigners,
  signWithSshKeygen,
  verifySignature,
} from '../../src/sign/index.js';
import {
  USER_PRESENCE,
  USER_VERIFICATION,
  makeSkKey,
  skSign,
  withApplication,
  type SkKey,
  type SkKind,
  type SkSignOptions,
} from './sk-signer.js';
import { run, sshVerify, tempDir } from './ssh.js';

const enc = new TextEncoder();
const ID = 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const PRINCIPAL = 'dev@example.com';

let dir: string;
let removeDir: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup: removeDir } = await tempDir());
});
afterAll(async () => {
  await removeDir();
  cleanupRepos();
});

/** ledger's answer to the question `ssh-keygen -Y verify -f signers -I principal -n ns` asks. */
function ledgerVerify(
  signers: string,
  principal: string,
  namespace: string,
  signature: string,
  message: Uint8Array,
): boolean {
  const checked = verifySignature(signature, message, namespace);
  if (!checked.ok) return false;
  const { entries } = parseAllowedSigners(signers);
  return isAllowedSigner(entries, principal, checked.publicKey, namespace, new Date());
}

/** Both verdicts, for one expectation that names them both. */
async function verdicts(
  signers: string,
  signature: string,
  message: Uint8Array | string = ID,
  namespace = 'ledger',
) {
  const bytes = typeof message === 'string' ? enc.encode(message) : message;
  return {
    ledger: ledgerVerify(signers, PRINCIPAL, namespace, signature, bytes),
    sshKeygen: await sshVerify(dir, signers, PRINCIPAL, namespace, signature, bytes),
  };
}

const both = (verdict: boolean) => ({ ledger: verdict, sshKeygen: verdict });

// OpenSSH's regress/unittests/sshsig/testdata (mktestdata.sh): `ssh-keygen -w sk-dummy.so -Y
// sign -f <key> -n unittest` over signed-data; sk-dummy reports flags 0x01, counter 0x12345678.
const OPENSSH = {
  message: 'This is a test, this is only a test',
  namespace: 'unittest',
  'ed25519-sk': {
    publicKey:
      'sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIJsaDYXQYruc6bilCYDIK4YSOeG+zmrRO2M9t03//7LHAAAABHNzaDo=',
    fingerprint: 'SHA256:pbI9wlyrFSsUbp+GTiIAOqNMvoajbF2tHsPMECyrMYU',
    signature: `-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAAEoAAAAac2stc3NoLWVkMjU1MTlAb3BlbnNzaC5jb20AAAAgmxoNhd
Biu5zpuKUJgMgrhhI54b7OatE7Yz23Tf//sscAAAAEc3NoOgAAAAh1bml0dGVzdAAAAAAA
AAAGc2hhNTEyAAAAZwAAABpzay1zc2gtZWQyNTUxOUBvcGVuc3NoLmNvbQAAAEAi+7eTjW
/+LQ2M+sCD+KFtH1n7VFFJon/SZFsxODyV8cWTlFKj617Ys1Ur5TV6uaEXQhck8rBA2oQI
HTPANLIPARI0Vng=
-----END SSH SIGNATURE-----
`,
  },
  'ecdsa-sk': {
    publicKey:
      'sk-ecdsa-sha2-nistp256@openssh.com AAAAInNrLWVjZHNhLXNoYTItbmlzdHAyNTZAb3BlbnNzaC5jb20AAAAIbmlzdHAyNTYAAABBBKDVa5jRcT5V7E6ysmwVi7HJWh7p5D+hebLPakQcpnD2ajJZ6G/4WzuhlYWnclWY63JspDp299Rlhq5AT86/g8AAAAAEc3NoOg==',
    fingerprint: 'SHA256:/ALxJUlmDPE0gxeL1nZip4oXm1VG1qmR2xL5iUzZD1A',
    signature: `-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAAH8AAAAic2stZWNkc2Etc2hhMi1uaXN0cDI1NkBvcGVuc3NoLmNvbQ
AAAAhuaXN0cDI1NgAAAEEEoNVrmNFxPlXsTrKybBWLsclaHunkP6F5ss9qRBymcPZqMlno
b/hbO6GVhadyVZjrcmykOnb31GWGrkBPzr+DwAAAAARzc2g6AAAACHVuaXR0ZXN0AAAAAA
AAAAZzaGE1MTIAAAB3AAAAInNrLWVjZHNhLXNoYTItbmlzdHAyNTZAb3BlbnNzaC5jb20A
AABIAAAAIHohGwyy8iKT3zwd1TYA9V/Ioo7h/3zCJUtyq/Qigt/HAAAAIGzidTwq7D/kFa
7Xjcp/KkdbIs4MfQpfAW/0OciajlpzARI0Vng=
-----END SSH SIGNATURE-----
`,
  },
  // A browser's WebAuthn assertion wrapped by OpenSSH (webauthn.html beside the vectors).
  webauthn: {
    publicKey:
      'sk-ecdsa-sha2-nistp256@openssh.com AAAAInNrLWVjZHNhLXNoYTItbmlzdHAyNTZAb3BlbnNzaC5jb20AAAAIbmlzdHAyNTYAAABBBBRGwDjs4HhJFcn4tJ5Gr72KcmRmCS1OirETxaXvnsNApgoOLF1a/7rxldfSMHm73eT1nhHe97W8qicPPEAKDJQAAAALbWluZHJvdC5vcmc=',
    signature: `-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAAIYAAAAic2stZWNkc2Etc2hhMi1uaXN0cDI1NkBvcGVuc3NoLmNvbQ
AAAAhuaXN0cDI1NgAAAEEEFEbAOOzgeEkVyfi0nkavvYpyZGYJLU6KsRPFpe+ew0CmCg4s
XVr/uvGV19Iwebvd5PWeEd73tbyqJw88QAoMlAAAAAttaW5kcm90Lm9yZwAAAAh1bml0dG
VzdAAAAAAAAAAGc2hhNTEyAAABhwAAACt3ZWJhdXRobi1zay1lY2RzYS1zaGEyLW5pc3Rw
MjU2QG9wZW5zc2guY29tAAAASQAAACBj2oMT9tb5wRXe6mdmf4/lgAO8wrgr95ouozwNg4
itnQAAACEAtU9g5wz3HchUiLfLD6plr9T4TiJ32lVCrATSjpiy0SMBAAADHwAAABdodHRw
czovL3d3dy5taW5kcm90Lm9yZwAAAON7InR5cGUiOiJ3ZWJhdXRobi5nZXQiLCJjaGFsbG
VuZ2UiOiJVMU5JVTBsSEFBQUFDSFZ1YVhSMFpYTjBBQUFBQUFBQUFBWnphR0UxTVRJQUFB
QkFMTHU4WmdjU3h0Nk1zRlV6dWlaZ0c2R3dNZEo5ZDd4ZUU3WW9SSXcwZzlpSEpfd3NGRD
cxbzRXbHllenZGV0VqYnFRMHFDN0Z3R3Bqa2pVUVAtTmQ2dyIsIm9yaWdpbiI6Imh0dHBz
Oi8vd3d3Lm1pbmRyb3Qub3JnIiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQAAAAA=
-----END SSH SIGNATURE-----
`,
  },
} as const;

describe("OpenSSH's own sk signatures (ssh-keygen -Y sign with its sk-dummy authenticator)", () => {
  it.each(['ed25519-sk', 'ecdsa-sk'] as const)(
    '%s: verifies, names the key and the fingerprint ssh-keygen prints; a changed message fails',
    async (kind) => {
      const vector = OPENSSH[kind];
      const message = enc.encode(OPENSSH.message);
      expect(verifySignature(vector.signature, message, OPENSSH.namespace)).toEqual({
        ok: true,
        publicKey: vector.publicKey,
        fingerprint: vector.fingerprint,
      });
      const signers = `${PRINCIPAL} ${vector.publicKey}\n`;
      expect(await verdicts(signers, vector.signature, message, OPENSSH.namespace)).toEqual(
        both(true),
      );
      expect(
        await verdicts(signers, vector.signature, `${OPENSSH.message}.`, OPENSSH.namespace),
      ).toEqual(both(false));
      const pub = join(dir, `${kind}.pub`);
      await writeFile(pub, `${vector.publicKey}\n`);
      expect(run('ssh-keygen', ['-l', '-f', pub]).stdout.split(' ')[1]).toBe(vector.fingerprint);
    },
  );

  it.each(['ed25519-sk', 'ecdsa-sk'] as const)(
    '%s: every byte of the signature is bound (flags and counter too): any change fails',
    (kind) => {
      const blob = dearmorSignature(OPENSSH[kind].signature);
      const message = enc.encode(OPENSSH.message);
      expect(verifySignature(armorSignature(blob), message, OPENSSH.namespace).ok).toBe(true);
      const accepted: string[] = [];
      for (let index = 0; index < blob.length; index++) {
        for (const delta of [0x01, 0x80, 0xff]) {
          const changed = new Uint8Array(blob);
          changed[index] = (changed[index]! + delta) & 0xff;
          const result = verifySignature(armorSignature(changed), message, OPENSSH.namespace);
          if (result.ok) accepted.push(`byte ${index} +${delta}`);
        }
      }
      expect(accepted).toEqual([]);
    },
  );

  it('a webauthn-sk signature (a browser, never ssh-keygen -Y sign) is refused, naming why; ssh-keygen accepts it (stricter)', async () => {
    const { publicKey, signature } = OPENSSH.webauthn;
    const message = enc.encode(OPENSSH.message);
    const checked = verifySignature(signature, message, OPENSSH.namespace);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.reason).toMatch(
      /webauthn-sk-ecdsa-sha2-nistp256.*not verified/,
    );
    expect(
      await verdicts(`${PRINCIPAL} ${publicKey}\n`, signature, message, OPENSSH.namespace),
    ).toEqual({ ledger: false, sshKeygen: true });
  });
});

describe.each(['ed25519-sk', 'ecdsa-sk'] as const)(
  '%s from a software authenticator: ledger and ssh-keygen -Y verify agree',
  (kind: SkKind) => {
    let key: SkKey;
    let line: string;
    beforeAll(() => {
      key = makeSkKey(kind);
      line = `${PRINCIPAL} ${key.publicKey}\n`;
    });
    // Every refusal below comes with its control, the same thing unaltered, accepted by both:
    // a verifier that refused every FIDO key would pass no test here.
    const control = async (signers = line, options: SkSignOptions = {}, signer = key) =>
      expect(await verdicts(signers, skSign(signer, ID, options))).toEqual(both(true));

    it('a good signature (user presence, sha512 and sha256)', async () => {
      expect(await verdicts(line, skSign(key, ID))).toEqual(both(true));
      expect(await verdicts(line, skSign(key, ID, { hashAlgorithm: 'sha256' }))).toEqual(
        both(true),
      );
      const checked = verifySignature(skSign(key, ID), enc.encode(ID), 'ledger');
      expect(checked).toMatchObject({ ok: true, publicKey: key.publicKey });
    });

    it('a wrong message', async () => {
      await control();
      expect(await verdicts(line, skSign(key, `${ID}\n`))).toEqual(both(false));
      expect(await verdicts(line, skSign(key, ID), ID.replace(/d$/, 'e'))).toEqual(both(false));
    });

    it('a wrong namespace', async () => {
      await control();
      expect(await verdicts(line, skSign(key, ID, { namespace: 'git' }))).toEqual(both(false));
      expect(await verdicts(line, skSign(key, ID), ID, 'file')).toEqual(both(false));
    });

    it('flags without user presence verify: ssh-keygen -Y verify checks no flag', async () => {
      for (const flags of [0x00, USER_VERIFICATION, USER_PRESENCE | USER_VERIFICATION, 0xff]) {
        expect({ flags, ...(await verdicts(line, skSign(key, ID, { flags }))) }).toEqual({
          flags,
          ...both(true),
        });
      }
    });

    it('no-touch-required / verify-required are no allowed_signers options: the line trusts no one', async () => {
      for (const option of [
        'no-touch-required',
        'verify-required',
        'namespaces="ledger",no-touch-required',
      ]) {
        const optioned = `${PRINCIPAL} ${option} ${key.publicKey}\n`;
        for (const flags of [0x00, USER_PRESENCE | USER_VERIFICATION]) {
          await control(line, { flags });
          expect({
            option,
            flags,
            ...(await verdicts(optioned, skSign(key, ID, { flags }))),
          }).toEqual({
            option,
            flags,
            ...both(false),
          });
        }
        expect(parseAllowedSigners(optioned).problems[0]?.message).toMatch(/unsupported option/);
      }
    });

    it('a different application string', async () => {
      await control();
      // Signed over another application than the key names: the bytes signed differ.
      const signedElsewhere = skSign(key, ID, { signedApplication: 'ssh:other' });
      expect(await verdicts(line, signedElsewhere)).toEqual(both(false));
      // The same device key registered for another application is another key, for both.
      const other = withApplication(key, 'ssh:ledger');
      expect(await verdicts(line, skSign(other, ID))).toEqual(both(false));
      expect(await verdicts(`${PRINCIPAL} ${other.publicKey}\n`, skSign(other, ID))).toEqual(
        both(true),
      );
      // Neither insists on "ssh:": the application is whatever the key was made for.
      const web = withApplication(key, 'https://example.com');
      expect(await verdicts(`${PRINCIPAL} ${web.publicKey}\n`, skSign(web, ID))).toEqual(
        both(true),
      );
    });

    it('a NUL inside the application string: refused by both', async () => {
      const plain = withApplication(key, 'ssh:x');
      await control(`${PRINCIPAL} ${plain.publicKey}\n`, {}, plain);
      const nul = withApplication(key, 'ssh:\0x');
      expect(await verdicts(`${PRINCIPAL} ${nul.publicKey}\n`, skSign(nul, ID))).toEqual(
        both(false),
      );
    });

    it('a tampered counter, a tampered flags byte', async () => {
      await control(line, { counter: 7 });
      await control(line, { flags: 0 });
      expect(await verdicts(line, skSign(key, ID, { counterAfterSigning: 8 }))).toEqual(
        both(false),
      );
      expect(
        await verdicts(line, skSign(key, ID, { flags: 0, flagsAfterSigning: USER_PRESENCE })),
      ).toEqual(both(false));
    });

    it('a signature named as another algorithm than the key type', async () => {
      await control(line, { algorithm: key.type });
      for (const algorithm of [
        kind === 'ed25519-sk' ? 'ssh-ed25519' : 'ecdsa-sha2-nistp256',
        kind === 'ed25519-sk' ? 'sk-ecdsa-sha2-nistp256@openssh.com' : 'sk-ssh-ed25519@openssh.com',
      ]) {
        expect({ algorithm, ...(await verdicts(line, skSign(key, ID, { algorithm }))) }).toEqual({
          algorithm,
          ...both(false),
        });
      }
    });

    it('a key not in allowed_signers, or under another principal', async () => {
      const stranger = makeSkKey(kind);
      await control(`${PRINCIPAL} ${stranger.publicKey}\n`, {}, stranger);
      await control();
      expect(await verdicts(line, skSign(stranger, ID))).toEqual(both(false));
      expect(await verdicts(`ops@example.com ${key.publicKey}\n`, skSign(key, ID))).toEqual(
        both(false),
      );
    });

    it("ledger's own signing (gpg.ssh.program standing in for ssh-keygen with a FIDO key) passes its check after signing", async () => {
      const signature = skSign(key, ID);
      const saved = join(dir, `${kind}-made.sig`);
      await writeFile(saved, signature);
      const program = join(dir, `${kind}-keygen.sh`);
      // As `ssh-keygen -Y sign -n ledger -f KEY FILE`: the signature lands in FILE.sig.
      await writeFile(program, `#!/bin/sh\nfor last; do :; done\ncp '${saved}' "$last.sig"\n`);
      await chmod(program, 0o755);
      const armored = await signWithSshKeygen(enc.encode(ID), 'ledger', {
        program,
        key: { file: join(dir, 'id_sk') },
      });
      expect(armored).toBe(signature);
    });
  },
);

describe('ledger sign --signature (the built CLI)', () => {
  it.each(['ed25519-sk', 'ecdsa-sk'] as const)(
    'adds an %s signature over a real record (the fingerprint ssh-keygen -l prints); verify trusts it',
    async (kind) => {
      const user = makeHome();
      const repo = gitdir();
      const { id } = await record(user, repo, {
        status: 'success',
        summary: 'signed with a FIDO key',
        producer: PRINCIPAL,
      });
      const key = makeSkKey(kind);
      const sig = join(user.home, 'record.sig');
      const signature = skSign(key, id);
      await writeFile(sig, signature);
      const pub = join(user.home, 'id_sk.pub');
      await writeFile(pub, `${key.publicKey} me@host\n`);
      const signers = join(user.home, 'allowed_signers');
      await writeFile(signers, `${PRINCIPAL} namespaces="ledger" ${key.publicKey}\n`);
      const good = await sshVerify(
        dir,
        await readFile(signers, 'utf8'),
        PRINCIPAL,
        'ledger',
        signature,
        enc.encode(id),
      );
      expect(good).toBe(true);

      const result = await runCli(['sign', id, '--signature', sig, '--json'], repo, user.env);
      expect(result.code, result.stdout).toBe(0);
      expect(result.stderr).toBe('');
      const answer = JSON.parse(result.stdout);
      expect(answer).toMatchObject({ ok: true, id, added: true, armored: signature });
      expect(answer.key).toBe(run('ssh-keygen', ['-l', '-f', pub]).stdout.split(' ')[1]);
      // And verify, under a policy whose allowed_signers names the key, trusts it.
      const policy = join(user.home, 'policy.json');
      await writeFile(
        policy,
        JSON.stringify({
          version: 1,
          witnessTimeoutSeconds: 30,
          rerun: { recordedHere: false, commands: [] },
          signatures: { allowedSigners: signers, required: true, roles: { producer: [PRINCIPAL] } },
        }),
      );
      const verified = await runCli(['verify', id, '--json', '--policy', policy], repo, user.env);
      expect(verified.code).toBe(0);
      const checks: { check: string; verdict: string; subject: string }[] = JSON.parse(
        verified.stdout,
      ).records[0].checks;
      expect(checks.filter((c) => c.check === 'signature' || c.check === 'producer')).toEqual([
        expect.objectContaining({ check: 'signature', subject: PRINCIPAL, verdict: 'verified' }),
        expect.objectContaining({ check: 'producer', subject: PRINCIPAL, verdict: 'verified' }),
      ]);
    },
  );
});
