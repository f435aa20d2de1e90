/**
 * Red team, round twelve, finding 4: the agent appends a record with git plumbing — a copy of
 * its failing record with the witness's exit code set to 0 and the effective status success.
 * `show` printed it under "Observed by ledger:" and "success (derived by ledger)", and MCP
 * `show` answered `authors.observed: "ledger"`, although ledger never ran that witness and
 * `verify` itself calls it unverifiable. A reader now says whether this machine can tell that
 * ledger observed it: the record was made by this user's ledger here (the user's state outside
 * the repository), or it carries a signature the policy trusts (verify's `attestedBy` rule);
 * anything else is the recording ledger's word, unproven until `verify --rerun`.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, cloneOf, git, PROJECT_ROOT, tempDir } from '../helpers/git.js';
import { forgeRecord } from '../helpers/forge.js';
import { sshKeyPair } from '../helpers/ssh-key.js';
import { cli, cliTextBinInProcess, makeUser, record, repoWithRecord } from './helpers.js';

beforeAll(() => {
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'index.js')))
    throw new Error('run npm run build first');
});
afterAll(cleanup);

const HONEST_HEADING = 'Observed by ledger (made by your ledger on this machine):';
const UNPROVEN = 'witness results unproven until ledger verify --rerun';

/** A failing witness's record, and the plumbing copy that says it passed. */
async function forgedPass() {
  const user = makeUser();
  const { dir, id } = await repoWithRecord(user, {
    status: 'success',
    task: 'T-1',
    summary: 'all tests pass',
    witnesses: ['false'],
    sign: false,
  });
  const forged = await forgeRecord(dir, id, (value) => {
    for (const w of value['observed'].witnesses) w.exitCode = 0;
    value['observed'].effectiveStatus = 'success';
    value['observed'].reasons = [];
    value['observed'].recordedAt = new Date(Date.now() + 1000).toISOString();
  });
  return { user, dir, id, forged };
}

describe('show says whose word the observed part is (red team 12, finding 4)', () => {
  it('attack: a record appended with git plumbing is not shown as what ledger observed', async () => {
    const { user, dir, id, forged } = await forgedPass();
    const shown = await cliTextBinInProcess(user, dir, ['show', '--latest', 'T-1']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`record ${forged}`);
    expect(shown.stdout).toContain('witness          false → exit 0');
    expect(shown.stdout).not.toContain('Observed by ledger');
    expect(shown.stdout).not.toContain('(derived by ledger)');
    expect(shown.stdout).toContain(
      `Observed by the ledger that recorded it (not recorded here and no signature the policy trusts: ${UNPROVEN}):`,
    );
    const json = await cli(user, dir, ['show', forged]);
    expect(json.json).toMatchObject({ effectiveStatus: 'success', observedProof: 'unproven' });
    // The record ledger made here, beside it, is still ledger's own observation.
    const honest = await cliTextBinInProcess(user, dir, ['show', id]);
    expect(honest.stdout).toContain(HONEST_HEADING);
    expect(honest.stdout).toContain('failed (derived by ledger)');
    expect((await cli(user, dir, ['show', id])).json.observedProof).toBe('recorded-here');
  });

  it('attack: MCP show of the plumbing record says its observed part is unproven', async () => {
    const { user, dir, forged } = await forgedPass();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), ...user.env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'ledger-test-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'show', arguments: { latest: 'T-1' } });
      expect(result.isError, JSON.stringify(result)).not.toBe(true);
      expect(result.structuredContent).toMatchObject({
        id: forged,
        effectiveStatus: 'success',
        // The schema's author of each field, unchanged; whether that is proven here, beside it.
        authors: { claims: 'agent', observed: 'ledger' },
        observedProof: 'unproven',
      });
    } finally {
      await client.close();
    }
  });

  it("a record signed with a key the policy trusts is attested, in a clone that did not make it; show writes nothing to the user's state", async () => {
    const author = makeUser();
    const keys = tempDir();
    const { key, pub } = sshKeyPair(keys, 'agent');
    writeFileSync(join(keys, 'allowed_signers'), `agent@example.com namespaces="ledger" ${pub}\n`);
    const policy = join(keys, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: true, commands: [] },
        witnessTimeoutSeconds: 30,
        signatures: { allowedSigners: join(keys, 'allowed_signers'), required: false },
      }),
    );
    const { dir, id } = await repoWithRecord(author, {
      status: 'success',
      summary: 'signed',
      witnesses: ['true'],
      sign: true,
      signingKey: key,
      producer: 'agent@example.com',
    });
    const unsigned = (await record(author, dir, { status: 'success', summary: 'unsigned' })).id;
    // Another user's clone of it: nothing of it was made by that user's ledger.
    const reader = makeUser();
    const clone = cloneOf(dir);
    git(clone, 'fetch', '-q', 'origin', 'refs/ledger/*:refs/ledger/*');
    const signed = await cliTextBinInProcess(reader, clone, ['show', id, '--policy', policy]);
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toContain(
      "Observed by ledger (attested by agent@example.com's trusted signature):",
    );
    expect((await cli(reader, clone, ['show', id, '--policy', policy])).json.observedProof).toBe(
      'trusted-signature',
    );
    const plain = await cli(reader, clone, ['show', unsigned, '--policy', policy]);
    expect(plain.json.observedProof).toBe('unproven');
    // show only reads the user's memory: no binding is written for a clone it looks into.
    expect(readdirSync(reader.env['XDG_STATE_HOME']!)).toEqual([]);
  });
});
