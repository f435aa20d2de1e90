import { describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId } from '../../src/canonical/index.js';
import { appendRecord } from '../../src/ledger/append.js';
import { fanout, LOG_REF, RECORD_FILE } from '../../src/ledger/layout.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { encodeCommit, encodeTree, parseCommit, parseTree } from '../../src/store/objects.js';
import type { MemoryStore } from '../../src/store/memory.js';
import { MemoryStore as Store } from '../../src/store/memory.js';
import { verifyLedger } from '../../src/verify/verify.js';
import type { Check } from '../../src/verify/types.js';
import { buildLedger, makeRecord } from '../helpers/ledger.js';

async function verify(store: MemoryStore, options = {}) {
  return verifyLedger(store, await readLedgerIndex(store), options);
}

function bad(checks: Check[]) {
  return checks.filter((c) => c.verdict !== 'verified');
}

/** Rewrites the tip commit's tree with `edit` applied to the record tree of `id`. */
async function rewriteRecordTree(
  store: MemoryStore,
  id: string,
  edit: (entries: ReturnType<typeof parseTree>) => Promise<void>,
) {
  const tip = store.refs.get(LOG_REF)!;
  const commit = parseCommit(store.objects.get(tip)!.bytes);
  const [fan, rest] = fanout(id);
  const root = parseTree(store.objects.get(commit.tree)!.bytes);
  const records = root.find((e) => e.name === 'records')!;
  const recordsTree = parseTree(store.objects.get(records.oid)!.bytes);
  const fanEntry = recordsTree.find((e) => e.name === fan)!;
  const fanTree = parseTree(store.objects.get(fanEntry.oid)!.bytes);
  const recordEntry = fanTree.find((e) => e.name === rest)!;
  const recordTree = parseTree(store.objects.get(recordEntry.oid)!.bytes);
  await edit(recordTree);
  recordEntry.oid = await store.write('tree', encodeTree(recordTree));
  fanEntry.oid = await store.write('tree', encodeTree(fanTree));
  records.oid = await store.write('tree', encodeTree(recordsTree));
  const tree = await store.write('tree', encodeTree(root));
  const who = { name: 'x', email: 'x@x', timestamp: 1, timezone: '+0000' };
  const next = await store.write(
    'commit',
    encodeCommit({
      tree,
      parents: [tip],
      author: who,
      committer: who,
      message: Buffer.from(store.objects.get(tip)!.bytes)
        .toString()
        .split('\n\n')
        .slice(1)
        .join('\n\n'),
    }),
  );
  store.refs.set(LOG_REF, next);
}

describe('verifyLedger', () => {
  it('passes an intact ledger with every integrity check verified', async () => {
    const { store, ids } = await buildLedger(3);
    const report = await verify(store);
    expect(report.exitCode).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.records.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const r of report.records) {
      expect(bad(r.checks)).toEqual([]);
      expect(r.checks.map((c) => c.check)).toEqual(
        expect.arrayContaining(['id', 'canonical', 'chain', 'anchor', 'status']),
      );
    }
  });

  it('an empty ledger verifies', async () => {
    const report = await verify(new Store());
    expect(report.exitCode).toBe(0);
    expect(report.records).toEqual([]);
  });

  it('exit 3 when a record blob was replaced under its id (changed summary)', async () => {
    const { store, ids } = await buildLedger(2);
    const forged = await makeRecord(store, {
      claims: { task: 'T-0', summary: 'a friendlier summary' },
    });
    await rewriteRecordTree(store, ids[0]!, async (entries) => {
      entries.find((e) => e.name === RECORD_FILE)!.oid = await store.write('blob', forged.bytes);
    });
    const report = await verify(store);
    expect(report.exitCode).toBe(3);
    const record = report.records.find((r) => r.id === ids[0])!;
    expect(bad(record.checks)).toEqual([
      expect.objectContaining({ check: 'id', verdict: 'contradicted', integrity: true }),
    ]);
  });

  it('exit 3 for valid CBOR that is not canonical, even with a matching id path', async () => {
    const store = new Store();
    const made = await makeRecord(store);
    // Same value, map header in a non-shortest form (0xb8 0x04 instead of 0xa4): re-encoding differs.
    const bytes = Buffer.concat([
      Buffer.from([0xb8, made.bytes[0]! & 0x1f]),
      made.bytes.subarray(1),
    ]);
    await appendRecord(
      store,
      {
        recordBytes: bytes,
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: made.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(),
    );
    const report = await verify(store);
    expect(report.exitCode).toBe(3);
    expect(bad(report.records[0]!.checks)).toEqual([
      expect.objectContaining({ check: 'canonical' }),
    ]);
  });

  it('exit 3 when a log entry in the middle is missing (a hole)', async () => {
    const { store } = await buildLedger(3);
    const tip = store.refs.get(LOG_REF)!;
    const commit = parseCommit(store.objects.get(tip)!.bytes);
    const root = parseTree(store.objects.get(commit.tree)!.bytes);
    const log = root.find((e) => e.name === 'log')!;
    const index = await readLedgerIndex(store);
    // The height-2 entry: neither the tip nor the first.
    const { readAllEntries } = await import('../../src/ledger/read.js');
    const entries = await readAllEntries(store, index);
    const middle = [...entries].find(([, e]) => e.height === 2)![0];
    const [fan, rest] = fanout(middle);
    const logTree = parseTree(store.objects.get(log.oid)!.bytes);
    const fanEntry = logTree.find((e) => e.name === fan)!;
    const remaining = parseTree(store.objects.get(fanEntry.oid)!.bytes).filter(
      (e) => e.name !== rest,
    );
    if (remaining.length === 0) logTree.splice(logTree.indexOf(fanEntry), 1);
    else fanEntry.oid = await store.write('tree', encodeTree(remaining));
    log.oid = await store.write('tree', encodeTree(logTree));
    const tree = await store.write('tree', encodeTree(root));
    const who = { name: 'x', email: 'x@x', timestamp: 1, timezone: '+0000' };
    store.refs.set(
      LOG_REF,
      await store.write(
        'commit',
        encodeCommit({
          tree,
          parents: [tip],
          author: who,
          committer: who,
          message: commit.message,
        }),
      ),
    );
    const report = await verify(store);
    expect(report.exitCode).toBe(3);
    expect(report.ledger.some((c) => c.check === 'chain' && /hole/.test(c.detail))).toBe(true);
  });

  it('exit 3 when an observed artifact digest no longer matches the candidate tree', async () => {
    const store = new Store();
    const made = await makeRecord(store, {
      files: { 'src/a.ts': 'one\n', 'b.txt': 'b\n' },
      artifacts: ['src/a.ts'],
    });
    const record = {
      ...made.record,
      observed: {
        ...made.record.observed,
        artifacts: [{ ...made.record.observed.artifacts[0]!, sha256: 'f'.repeat(64) }],
      },
    };
    const bytes = encodeCanonical(record as never);
    await appendRecord(
      store,
      {
        recordBytes: bytes,
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: made.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(),
    );
    const report = await verify(store);
    expect(report.exitCode).toBe(3);
    expect(bad(report.records[0]!.checks)).toEqual([
      expect.objectContaining({ check: 'artifact', subject: 'src/a.ts', integrity: true }),
    ]);
  });

  it('exit 3 when the stored base commit does not hash to the recorded one', async () => {
    const store = new Store();
    const made = await makeRecord(store);
    const otherBase = new TextEncoder().encode(
      Buffer.from(made.baseCommitBytes).toString().replace('base', 'other'),
    );
    await appendRecord(
      store,
      {
        recordBytes: made.bytes,
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: otherBase,
        evidence: new Map(),
      },
      new Date(),
    );
    const report = await verify(store);
    expect(report.exitCode).toBe(3);
    expect(bad(report.records[0]!.checks)).toEqual([
      expect.objectContaining({ check: 'anchor', subject: 'base' }),
    ]);
  });

  it('claims: artifacts, deletions, digests, references and anchors are checked against the candidate tree', async () => {
    const store = new Store();
    const made = await makeRecord(store, {
      files: { 'src/a.ts': 'one\ntwo\nthree\n', 'docs/x.md': 'x\n' },
      baseFiles: { 'src/a.ts': 'one\n', 'old.ts': 'old\n', 'docs/x.md': 'x\n' },
      claims: {
        artifacts: [
          { path: 'src/a.ts', action: 'modified' },
          { path: 'src/missing.ts', action: 'created' },
          { path: 'old.ts', action: 'deleted' },
          { path: 'docs/x.md', action: 'deleted' },
          { path: 'docs/x.md', action: 'touched', sha256: '0'.repeat(64) },
        ],
        references: [
          { path: 'src/a.ts', line: 3 },
          { path: 'src/a.ts', line: 4 },
          { path: 'nope.ts', line: 1 },
        ],
        anchors: { baseCommit: 'deadbeef' },
      },
    });
    await appendRecord(
      store,
      {
        recordBytes: made.bytes,
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: made.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(),
    );
    const report = await verify(store);
    expect(report.exitCode).toBe(1);
    const verdicts = Object.fromEntries(
      report.records[0]!.checks.filter(
        (c) => c.check.startsWith('claim.') || c.check === 'reference',
      ).map((c) => [`${c.check} ${c.subject} ${c.verdict}`, true]),
    );
    expect(Object.keys(verdicts).sort()).toEqual(
      [
        'claim.anchor baseCommit contradicted',
        'claim.artifact docs/x.md contradicted',
        'claim.artifact old.ts verified',
        'claim.artifact src/a.ts verified',
        'claim.artifact src/missing.ts contradicted',
        'reference nope.ts:1 contradicted',
        'reference src/a.ts:3 verified',
        'reference src/a.ts:4 contradicted',
      ].sort(),
    );
    // Integrity is intact: these are the agent's claims failing, so exit 1, not 3.
    expect(
      report.records[0]!.checks.filter((c) => c.integrity && c.verdict !== 'verified'),
    ).toEqual([]);
  });

  it('a success claim whose observations lowered the status is contradicted', async () => {
    const store = new Store();
    const made = await makeRecord(store);
    const record = {
      ...made.record,
      observed: {
        ...made.record.observed,
        // A witness that failed at record time (its output not kept: v2 allows that).
        witnesses: [
          { command: 'npm test', exitCode: 1, signal: null, timedOut: false, durationMs: 5 },
        ],
        effectiveStatus: 'failed' as const,
        reasons: [
          {
            code: 'WITNESS_FAILED',
            message: 'witness exited with 1: npm test',
            subject: 'npm test',
          },
        ],
      },
    };
    await appendRecord(
      store,
      {
        recordBytes: encodeCanonical(record as never),
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: made.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(),
    );
    const report = await verify(store);
    expect(report.exitCode).toBe(1);
    expect(bad(report.records[0]!.checks)).toEqual([
      expect.objectContaining({ check: 'witness', verdict: 'unverifiable' }),
      expect.objectContaining({ check: 'status', verdict: 'contradicted' }),
    ]);
  });

  it('--strict turns unverifiable claims into a failure; without it they pass', async () => {
    const store = new Store();
    const made = await makeRecord(store, {
      claims: { checks: [{ command: 'npm test', result: 'passed' }] },
    });
    await appendRecord(
      store,
      {
        recordBytes: made.bytes,
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: made.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(),
    );
    expect((await verify(store)).exitCode).toBe(0);
    const strict = await verify(store, { strict: true });
    expect(strict.exitCode).toBe(1);
    expect(bad(strict.records[0]!.checks)).toEqual([
      expect.objectContaining({ check: 'claim.check', verdict: 'unverifiable' }),
    ]);
  });

  it('re-runs claimed checks through the rerunner and compares results', async () => {
    const store = new Store();
    const made = await makeRecord(store, {
      claims: {
        checks: [
          { command: 'npm test', result: 'passed' },
          { command: 'npm run lint', result: 'failed' },
        ],
      },
    });
    await appendRecord(
      store,
      {
        recordBytes: made.bytes,
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: made.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(),
    );
    const ran: string[] = [];
    const report = await verify(store, {
      rerun: async ({ command, candidateTree }: { command: string; candidateTree: string }) => {
        ran.push(`${command}@${candidateTree}`);
        return {
          ran: true as const,
          result: { exitCode: command === 'npm test' ? 2 : 1, timedOut: false },
        };
      },
    });
    expect(ran).toEqual([`npm test@${made.candidateTree}`, `npm run lint@${made.candidateTree}`]);
    expect(report.exitCode).toBe(1);
    const byCommand = Object.fromEntries(
      report.records[0]!.checks.filter((c) => c.check === 'claim.check').map((c) => [
        c.subject,
        c.verdict,
      ]),
    );
    expect(byCommand).toEqual({ 'npm test': 'contradicted', 'npm run lint': 'verified' });
  });

  it('verifies only the requested records but always the chain', async () => {
    const { store, ids } = await buildLedger(3);
    const report = await verifyLedger(store, await readLedgerIndex(store), { ids: [ids[1]!] });
    expect(report.records.map((r) => r.id)).toEqual([ids[1]]);
    expect(report.ledger.map((c) => c.check)).toEqual(['chain']);
    expect(toRecordId(new Uint8Array())).toMatch(/^sha256:/);
  });
});
