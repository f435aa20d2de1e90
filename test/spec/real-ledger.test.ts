/**
 * spec/ against what the code really writes: a ledger built through the library in-process —
 * a record of every handoff format; a signed flags-only record with a witness, evidence and an
 * artifact; a v3 record (an untracked file over the user's budget, skipped); a lifecycle step;
 * an attestation with its signature; and two clones synced through a remote so that a join
 * entry exists. Every object under the ledger ref, read with plain git, is checked against
 * spec/ledger.cddl by the independent validator and against the canonical rules, and the
 * independent verifier (written from spec/ alone) recomputes every id and walks the chain of
 * the merged ledger and of each writer ref — and finds tampering, so its clean result counts.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Decoder, Encoder } from 'cbor-x';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { recordHandoff } from '../../src/app/record.js';
import { syncRepository } from '../../src/app/sync.js';
import { verifyRepository } from '../../src/app/verify.js';
import { asUser } from '../adversarial/helpers.js';
import { CddlSchema } from '../helpers/cddl-validator.js';
import {
  cleanup,
  git,
  PROJECT_ROOT,
  remoteWithClones,
  tempDir,
  writeFiles,
} from '../helpers/git.js';
import { signingUser } from '../helpers/signing-user.js';
import {
  canonicalProblem,
  catBatch,
  verifyLedgerRef,
  type Verified,
} from './independent-verifier.js';

afterAll(cleanup);

const schema = CddlSchema.load(join(PROJECT_ROOT, 'spec', 'ledger.cddl'));
const decoder = new Decoder({ mapsAsObjects: true, useRecords: false });

/** One real handoff of each format (fixtures/handoffs/, pinned upstream documents). */
const HANDOFFS = [
  ['kxm', 'kxm/accepted-minimal.json'],
  ['mainark', 'mainark/handoff-MAI-101.partial.json'],
  ['maxsim', 'maxsim/real-03-01-SUMMARY.md'],
  ['structured', 'structured/completed-markdown.md'],
  ['team', 'team/claude-progress.json'],
] as const;

let local: string;
/** The clone that joined both histories: its ledger holds everything. */
let other: string;
let remote: string;
let ids: Record<string, string>;

beforeAll(async () => {
  const user = signingUser();
  ({
    remote,
    clones: [local, other],
  } = (() => {
    const r = remoteWithClones(2);
    return { remote: r.remote, clones: r.clones as [string, string] };
  })());
  ids = {};
  // A record with observed.skipped: an untracked file over the user's budget is left out of the candidate tree and
  // the record says so (observed.skipped).
  git(
    user.home,
    'config',
    '--file',
    user.env['GIT_CONFIG_GLOBAL']!,
    'ledger.maxUntrackedFileBytes',
    '1000',
  );
  writeFiles(other, { 'big.bin': 'x'.repeat(2000) });
  await asUser(user, async () => {
    writeFiles(local, { 'src/new.ts': 'export const y = 2;\n', 'log.txt': 'validation ok\n' });
    // At once: appends race for the ref and retry (the compare-and-swap loop), as clones do.
    const recorded = await Promise.all([
      ...HANDOFFS.map(([format, file]) =>
        recordHandoff({
          cwd: local,
          from: {
            bytes: new Uint8Array(readFileSync(join(PROJECT_ROOT, 'fixtures', 'handoffs', file))),
            fileName: basename(file),
          },
          format,
          sign: false, // one signed record below is enough, and each signature costs a spawn
        }),
      ),
      recordHandoff({
        cwd: local,
        status: 'success',
        summary: 'flags only',
        task: 'T-1',
        artifacts: ['src/new.ts'],
        witnesses: ['echo witnessed'],
        evidence: new Map([['validation', 'log.txt']]),
      }),
      recordHandoff({ cwd: other, status: 'partial', summary: 'from b' }),
    ]);
    [...HANDOFFS.map(([format]) => format), 'ledger', 'other'].forEach((name, i) => {
      ids[name] = recorded[i]!.id;
    });
    ids['step'] = (
      await applyLifecycle({ cwd: local, id: ids['ledger']!, action: 'reject', by: 'reviewer' })
    ).id;
    await verifyRepository({ cwd: local, ids: [ids['ledger']!], record: true });
    await syncRepository({ cwd: local });
    await syncRepository({ cwd: other }); // both sides brought entries: a join
  });
});

/** Every ledger object under `ref`, by kind, read with plain git (ls-tree, cat-file). */
function objectsUnder(dir: string, ref: string): { kind: string; id: string; bytes: Buffer }[] {
  const out: { kind: string; id: string; bytes: Buffer }[] = [];
  const lines = git(
    dir,
    'ls-tree',
    '-r',
    '--full-tree',
    ref,
    '--',
    'log',
    'signatures',
    'attestations',
  )
    .split('\n')
    .filter(Boolean);
  const records = git(dir, 'ls-tree', '-d', '-r', '--full-tree', ref, '--', 'records')
    .split('\n')
    .filter((l) => /\trecords\/[0-9a-f]{2}\/[0-9a-f]{62}$/.test(l));
  const wanted: { kind: string; id: string; object: string }[] = [];
  for (const line of lines) {
    const [meta, path] = line.split('\t') as [string, string];
    const [kind, fan, rest] = path.split('/') as [string, string, string];
    wanted.push({ kind, id: `sha256:${fan}${rest}`, object: meta.split(' ')[2]! });
  }
  for (const line of records) {
    const path = line.split('\t')[1]!;
    const [, fan, rest] = path.split('/') as [string, string, string];
    wanted.push({ kind: 'records', id: `sha256:${fan}${rest}`, object: `${ref}:${path}/record` });
  }
  const bodies = catBatch(
    dir,
    wanted.map((w) => w.object),
  );
  for (const w of wanted) out.push({ kind: w.kind, id: w.id, bytes: bodies.get(w.object)!.bytes });
  return out;
}

function attestationId(objects: { kind: string; id: string }[]): string | undefined {
  return objects.find((o) => o.kind === 'attestations')?.id;
}

const RULE: Record<string, string> = {
  log: 'log-entry',
  records: 'ledger-record',
  signatures: 'signature',
  attestations: 'attestation',
};

describe('every object the code wrote matches spec/ledger.cddl', () => {
  it('each format’s record, the step, the log entries (a join among them), signatures and the attestation', () => {
    const objects = objectsUnder(other, 'refs/ledger/log');
    const problems: string[] = [];
    const seen = new Map<string, unknown[]>();
    for (const { kind, id, bytes } of objects) {
      const value = decoder.decode(bytes);
      (seen.get(kind) ?? seen.set(kind, []).get(kind)!).push(value);
      for (const m of schema.validate(RULE[kind]!, value))
        problems.push(`${kind} ${id}: ${m.path} ${m.message}`);
      const canonical = canonicalProblem(bytes);
      if (canonical !== undefined) problems.push(`${kind} ${id}: ${canonical}`);
    }
    expect(problems).toEqual([]);
    const records = seen.get('records') as any[];
    // The coverage the spec test promises, so that it cannot pass on a thinner ledger.
    expect(new Set(records.map((r) => r.format))).toEqual(
      new Set(['kxm', 'mainark', 'maxsim', 'structured', 'team', 'ledger', 'lifecycle']),
    );
    expect(new Set(records.map((r) => r.schema))).toEqual(
      new Set(['ledger.record/v4', 'ledger.record/v5']),
    );
    const step = records.find((r) => r.format === 'lifecycle');
    expect(schema.validate('lifecycle-step', step)).toEqual([]);
    expect(step.claims.extra.lifecycle).toMatchObject({ action: 'reject', of: ids['ledger'] });
    expect((seen.get('log') as any[]).some((e) => e.record === null && e.prev.length === 2)).toBe(
      true,
    );
    expect(seen.get('attestations')?.length).toBe(1);
    // The signed record and the attestation, each signed by the user.
    const subjects = (seen.get('signatures') as any[]).map((s) => s.subject);
    expect(subjects).toContain(ids['ledger']);
    expect(subjects).toContain(attestationId(objects));
  });
});

describe('an independent verifier, from spec/ alone', () => {
  let verified: Verified;
  beforeAll(() => {
    verified = verifiedLedger();
  });

  it('recomputes every id, walks the chain and checks each record tree: no finding on an honest ledger', () => {
    expect(verified.findings).toEqual([]);
    expect(verified.records.size).toBe(Object.keys(ids).length);
    for (const id of Object.values(ids)) expect(verified.records.has(id), id).toBe(true);
  });

  it('orders the log as ledger log does, and every signature is an SSHSIG over the id it names', async () => {
    const { listLog, withRepo } = await import('../../src/index.js');
    const logged = await withRepo(other, ({ store }) => listLog(store, {}));
    const mine = verified.order
      .map((e) => verified.entries.get(e)!.record)
      .filter((r): r is string => r !== null);
    expect(mine).toEqual(logged.map((item) => item.id));
    expect([...verified.signatures.values()].every((s) => s.signs === 'id')).toBe(true);
  });

  it('verifies each writer ref on the remote on its own', () => {
    const writers = git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/writers/')
      .split('\n')
      .filter(Boolean);
    expect(writers.length).toBe(2);
    for (const ref of writers)
      expect(verifyLedgerRef(remote, ref, schema).findings, ref).toEqual([]);
  });
});

describe('the independent verifier finds tampering (so its clean result means something)', () => {
  /** A copy of the ledger at `refs/spec-test/<name>` with one path replaced or removed. */
  function tampered(name: string, edits: { path: string; bytes?: Uint8Array }[]): string {
    const index = join(tempDir('spec-index-'), 'index');
    const env = { ...process.env, GIT_INDEX_FILE: index, LC_ALL: 'C' };
    const run = (args: string[], input?: Uint8Array) => {
      const r = spawnSync('git', args, { cwd: other, env, input });
      if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString()}`);
      return r.stdout.toString().trim();
    };
    run(['read-tree', 'refs/ledger/log']);
    for (const edit of edits) {
      if (edit.bytes === undefined) run(['update-index', '--force-remove', edit.path]);
      else {
        const oid = run(['hash-object', '-w', '--stdin'], edit.bytes);
        run(['update-index', '--add', '--cacheinfo', `100644,${oid},${edit.path}`]);
      }
    }
    const tree = run(['write-tree']);
    const message = git(other, 'cat-file', 'commit', 'refs/ledger/log')
      .split('\n\n')
      .slice(1)
      .join('\n\n');
    const commit = run(['commit-tree', tree, '-m', message]);
    const ref = `refs/spec-test/${name}`;
    run(['update-ref', ref, commit]);
    return ref;
  }

  const leafPath = (dir: string, id: string) => `${dir}/${id.slice(7, 9)}/${id.slice(9)}`;
  const problems = (ref: string) =>
    verifyLedgerRef(other, ref, schema).findings.map((f) => `${f.subject} ${f.problem}`);

  it('a record rewritten under its id: the bytes no longer hash to the path', () => {
    const id = ids['kxm']!;
    const path = `${leafPath('records', id)}/record`;
    const record = decoder.decode(
      catBatch(other, [`refs/ledger/log:${path}`])
        .values()
        .next().value!.bytes,
    );
    record.observed.effectiveStatus = 'success';
    const bytes = new Encoder({ useRecords: false }).encode(record);
    expect(problems(tampered('rewritten', [{ path, bytes }]))).toEqual([
      expect.stringMatching(new RegExp(`^${id} its bytes hash to sha256:`)),
    ]);
  });

  it('a log entry taken out: a hole, and a record no entry names', () => {
    const entries = verifiedLedger().entries;
    const [entryId, entry] = [...entries].find(([, e]) => e.record === ids['mainark'])!;
    const found = problems(tampered('hole', [{ path: leafPath('log', entryId) }]));
    expect(found).toContainEqual(expect.stringContaining(`prev ${entryId} is not in the log`));
    expect(found).toContainEqual(`${entry.record} named by 0 log entries, expected 1`);
  });

  it('a leaf in non-canonical CBOR under the hash of its own bytes: refused as not canonical', () => {
    // cbor-x's own output (keys in insertion order, text heads longer than needed): valid CBOR,
    // and the blob is named by its own hash, but these are not the canonical bytes.
    const bytes = new Encoder({ useRecords: false }).encode({
      subject: ids['ledger'],
      schema: 'ledger.signature/v1',
      armored: 'x',
    });
    const id = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    expect(
      problems(tampered('noncanonical', [{ path: leafPath('signatures', id), bytes }])),
    ).toEqual([expect.stringMatching(new RegExp(`^${id} not canonical CBOR: `))]);
  });
});

let verifiedOnce: Verified | undefined;
function verifiedLedger(): Verified {
  verifiedOnce ??= verifyLedgerRef(other, 'refs/ledger/log', schema);
  return verifiedOnce;
}
