/**
 * `ledger sign ID` says what it signs, and signs an attestation only when told so. A signature
 * is over the bare id whatever the id names, so a reviewer asked to "sign my accept step" who is
 * handed the id of an attestation the agent forged (every verdict verified) would make that
 * attestation trusted for the auditor role (red team, round eleven). The commands run in this
 * process, routed as bin/run.js routes them; ssh-keygen runs as itself.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTESTATIONS_DIR } from '../../src/ledger/layout.js';
import { appendLeaves, leafId } from '../../src/ledger/leaves.js';
import { ATTESTATION_SCHEMA } from '../../src/model/attestation.js';
import { GitStore } from '../../src/store/git/store.js';
import { openRepo } from '../../src/store/git/repo.js';
import { cleanup, tempDir } from '../helpers/git.js';
import { auditorPolicy, flagWitness } from '../helpers/lifecycle.js';
import {
  allChecks,
  cliBinInProcess as cli,
  cliTextBinInProcess as cliText,
  makeUser,
  repoWithRecord,
  safeRefs,
} from './helpers.js';

afterEach(cleanup);

function keypair(name: string): { key: string; pub: string } {
  const key = `${tempDir()}/${name}`;
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
  return { key, pub: execFileSync('cat', [`${key}.pub`], { encoding: 'utf8' }).trim() };
}

describe('adversarial: ledger sign says what it signs', () => {
  it('attack: the agent hands the reviewer its forged attestation as "my accept step" — refused without --attestation (exit 2, USAGE, nothing written), naming it an attestation of the record with its verdicts', async () => {
    const user = makeUser();
    const me = keypair('me');
    const { witness } = flagWitness(tempDir());
    const { dir, id: lie } = await repoWithRecord(user, {
      status: 'success',
      witnesses: [witness],
    });
    const store = new GitStore(await openRepo(dir));
    const forged = {
      schema: ATTESTATION_SCHEMA,
      subject: lie,
      policy: 'a'.repeat(64),
      ledgerVersion: '1.0.0',
      rerun: true,
      at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      verdicts: [
        {
          id: 'observed.witnesses[0]',
          check: 'witness',
          subject: witness,
          verdict: 'verified',
          detail: 'recorded exit 0, re-run gave exit 0',
        },
      ],
    };
    await appendLeaves(store, [{ dir: ATTESTATIONS_DIR, value: forged }], 'attest', new Date());
    const attestation = leafId(forged);
    const before = safeRefs(dir);

    const refused = await cli(user, dir, ['sign', attestation, '--signing-key', me.key]);
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('USAGE');
    expect(refused.json.error.message).toContain(
      `${attestation} is an attestation of record ${lie} (verdicts: 1 verified; witnesses re-run; signed by no key yet)`,
    );
    expect(refused.json.error.hint).toMatch(
      /vouches for its verdicts as an auditor: pass --attestation only for an attestation you made or re-checked/,
    );
    expect(safeRefs(dir)).toBe(before);

    const text = await cliText(user, dir, ['sign', attestation, '--signing-key', me.key]);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(`not signed: ${attestation} is an attestation of record ${lie}`);
    expect(safeRefs(dir)).toBe(before);
  });

  it('an auditor signs the attestation they made with --attestation: signed, and said to be an attestation of the record with its verdicts', async () => {
    const user = makeUser();
    const auditor = keypair('auditor');
    const { dir, id } = await repoWithRecord(user, { status: 'success', witnesses: ['true'] });
    const policy = auditorPolicy(tempDir(), auditor.pub);
    const made = await cli(user, dir, ['verify', id, '--record', '--policy', policy]);
    expect(made.code).toBe(0);
    const attestation: string = made.json.attestations[0].id;

    const signed = await cli(user, dir, [
      'sign',
      attestation,
      '--attestation',
      '--signing-key',
      auditor.key,
    ]);
    expect(signed.code).toBe(0);
    expect(signed.json).toMatchObject({
      id: attestation,
      added: true,
      kind: 'attestation',
      of: id,
      rerun: false,
      signedBy: [],
    });
    expect(signed.json.verdicts.verified).toBeGreaterThan(0);
    expect(signed.json.verdicts.contradicted).toBe(0);
    const trusted = await cli(user, dir, ['verify', id, '--from-attestation', '--policy', policy]);
    expect(allChecks(trusted.json).find((c) => c.check === 'attestation')?.verdict).toBe(
      'verified',
    );

    const again = await cliText(user, dir, [
      'sign',
      attestation,
      '--attestation',
      '--signing-key',
      auditor.key,
    ]);
    expect(again.stdout).toMatch(
      new RegExp(
        `^already signed attestation ${attestation} of record ${id} \\(verdicts: \\d+ verified[^)]*\\) \\(key SHA256:`,
      ),
    );
  });

  it('signing a record and a lifecycle step still works, and says which it was; --attestation on either is refused', async () => {
    const user = makeUser();
    const me = keypair('me');
    const { dir, id } = await repoWithRecord(user, { status: 'success', summary: 'done' });
    const record = await cli(user, dir, ['sign', id, '--signing-key', me.key]);
    expect(record.code).toBe(0);
    expect(record.json).toMatchObject({ id, kind: 'record', added: true });
    expect(record.json.of).toBeUndefined();

    const step: string = (await cli(user, dir, ['accept', id])).json.id;
    const before = safeRefs(dir);
    const wrong = await cli(user, dir, ['sign', step, '--attestation', '--signing-key', me.key]);
    expect(wrong.code).toBe(2);
    expect(wrong.json.error.message).toContain(
      `--attestation was given, but ${step} is a lifecycle step (accept of record ${id})`,
    );
    expect(safeRefs(dir)).toBe(before);

    const text = await cliText(user, dir, ['sign', step, '--signing-key', me.key]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`^signed lifecycle step ${step} \\(accept of record ${id}\\) \\(key SHA256:`),
    );
    const json = await cli(user, dir, ['sign', step, '--signing-key', me.key]);
    expect(json.json).toMatchObject({ kind: 'step', action: 'accept', of: id, added: false });
  });
});
