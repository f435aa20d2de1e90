/**
 * The auditor's format gates (`formats.<name>.*` in the policy) apply at verify, not at record:
 * the stored status is derived under the format's own rules so that every verifier can
 * re-derive it, and the gate is a separate check, `policy.formats`, of the auditor's stricter
 * reading.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from '../helpers/git.js';
import { cli, makeUser, record, repoWithRecord } from '../adversarial/helpers.js';

afterEach(cleanup);

const summary = (status: string) => `### Key Decisions
- Kept the parser pure

### Artifacts
- Created: src/new.ts

### Status
${status}

Evidence:
- \`npm test\` 12 passed

### Deferred Items
- none
`;

function gatePolicy(home: string): string {
  const file = join(home, 'policy.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: false, commands: [] },
      witnessTimeoutSeconds: 30,
      formats: { maxsim: { requireEvidenceBlocks: true } },
    }),
  );
  return file;
}

describe("verify applies the auditor's format gates", () => {
  it('a PASS without evidence blocks: verified without the gate, policy.formats contradicted (exit 1) with it; the stored status is never judged by the gate', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'new.ts'), 'export {};\n');
    const made = await record(user, dir, {
      from: { bytes: new TextEncoder().encode(summary('PASS')), fileName: 'SUMMARY.md' },
    });
    // record derives under the format's own rule: blocks are a note, the status stays success.
    expect(made.record.observed.effectiveStatus).toBe('success');
    expect(made.record.observed.reasons.map((r) => r.code)).toContain('MAXSIM_NO_EVIDENCE_BLOCKS');

    const plain = await cli(user, dir, ['verify', made.id]);
    expect(plain.code).toBe(0);
    const plainChecks = plain.json.records[0].checks;
    expect(plainChecks.find((c: any) => c.id === 'policy.formats')).toBeUndefined();

    const gated = await cli(user, dir, ['verify', made.id, '--policy', gatePolicy(user.home)]);
    expect(gated.code).toBe(1);
    const checks = gated.json.records[0].checks;
    expect(checks.find((c: any) => c.id === 'policy.formats')).toMatchObject({
      verdict: 'contradicted',
      detail: expect.stringMatching(/partial.*MAXSIM_EVIDENCE_BLOCKS_REQUIRED/),
    });
    // The stored status re-derives exactly: it was never derived under the gate.
    expect(checks.find((c: any) => c.id === 'observed.effectiveStatus')?.verdict).toBe('verified');
  });

  it('a PARTIAL claim under the gate is not a contradiction: it never said the work was done', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'new.ts'), 'export {};\n');
    const made = await record(user, dir, {
      from: { bytes: new TextEncoder().encode(summary('PARTIAL')), fileName: 'SUMMARY.md' },
    });
    const gated = await cli(user, dir, ['verify', made.id, '--policy', gatePolicy(user.home)]);
    expect(gated.code).toBe(0);
    const gate = gated.json.records[0].checks.find((c: any) => c.id === 'policy.formats');
    // Either no gate applies to a partial claim or it is reported as holding; never contradicted.
    if (gate !== undefined) expect(gate.verdict).toBe('verified');
  });
});
