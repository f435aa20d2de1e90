/**
 * A second implementation of ledger's reading side, written from spec/ alone (verifying.md,
 * layout.md, encoding.md, signatures.md, ledger.cddl): it reads a ledger ref through `git
 * cat-file` and `git ls-tree` only, decodes with cbor-x, hashes with node:crypto, validates
 * shapes with the independent CDDL validator, and imports nothing from src/. If it and
 * `ledger verify` ever disagree on an honest ledger, spec/ is wrong or incomplete.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decoder } from 'cbor-x';
import { CddlSchema } from '../helpers/cddl-validator.js';

export interface Finding {
  subject: string;
  problem: string;
}

export interface Verified {
  tipEntry: string;
  /** Entry ids, newest first (height descending, then id ascending). */
  order: string[];
  entries: Map<string, { record: string | null; prev: string[]; height: number }>;
  records: Map<string, any>;
  signatures: Map<
    string,
    { subject: string; armored: string; signs: 'id' | 'recorded-here' | 'none' }
  >;
  attestations: Map<string, any>;
  findings: Finding[];
}

const KINDS = {
  log: { mode: '100644', type: 'blob', rule: 'log-entry' },
  records: { mode: '40000', type: 'tree', rule: 'ledger-record' },
  signatures: { mode: '100644', type: 'blob', rule: 'signature' },
  attestations: { mode: '100644', type: 'blob', rule: 'attestation' },
} as const;
type Kind = keyof typeof KINDS;

const decoder = new Decoder({ mapsAsObjects: true, useRecords: false });

function git(dir: string, args: string[], input?: string): Buffer {
  const r = spawnSync('git', args, {
    cwd: dir,
    input,
    maxBuffer: 1 << 30,
    env: { ...process.env, LC_ALL: 'C', GIT_NO_REPLACE_OBJECTS: '1' },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString()}`);
  return r.stdout;
}

/** Many objects in one `git cat-file --batch`. */
export function catBatch(
  dir: string,
  oids: readonly string[],
): Map<string, { type: string; bytes: Buffer }> {
  const out = new Map<string, { type: string; bytes: Buffer }>();
  if (oids.length === 0) return out;
  const raw = git(dir, ['cat-file', '--batch'], `${oids.join('\n')}\n`);
  let pos = 0;
  for (const oid of oids) {
    const nl = raw.indexOf(10, pos);
    const header = raw.subarray(pos, nl).toString();
    pos = nl + 1;
    const [, type, size] = header.split(' ');
    if (type === undefined || size === undefined) throw new Error(`cat-file: ${header}`);
    out.set(oid, { type, bytes: raw.subarray(pos, pos + Number(size)) });
    pos += Number(size) + 1;
  }
  return out;
}

interface TreeEntry {
  mode: string;
  oid: string;
  name: string;
}

/**
 * The objects of one repository, read in batches (one `git cat-file --batch` per call to
 * `prefetch`) and kept: a verifier reads a level of trees at a time.
 */
class Objects {
  private readonly cache = new Map<string, { type: string; bytes: Buffer }>();
  constructor(private readonly dir: string) {}

  prefetch(oids: Iterable<string>): void {
    const missing = [...new Set(oids)].filter((o) => !this.cache.has(o));
    for (const [oid, object] of catBatch(this.dir, missing)) this.cache.set(oid, object);
  }

  get(oid: string): { type: string; bytes: Buffer } {
    this.prefetch([oid]);
    return this.cache.get(oid)!;
  }

  /** git's tree format: "<mode> <name>\0<20-byte id>" per entry. */
  tree(oid: string): TreeEntry[] {
    const { type, bytes } = this.get(oid);
    if (type !== 'tree') throw new Error(`${oid} is a ${type}, not a tree`);
    const out: TreeEntry[] = [];
    for (let pos = 0; pos < bytes.length;) {
      const space = bytes.indexOf(0x20, pos);
      const nul = bytes.indexOf(0, space);
      out.push({
        mode: bytes.toString('latin1', pos, space),
        name: bytes.toString('utf8', space + 1, nul),
        oid: bytes.toString('hex', nul + 1, nul + 21),
      });
      pos = nul + 21;
    }
    return out;
  }
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** git's object id of a blob or commit (sha1 object format). */
function gitOid(type: string, bytes: Uint8Array): string {
  return createHash('sha1').update(`${type} ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * encoding.md, "Refused": the canonical form, checked on the bytes. Returns the first
 * problem, or undefined when `bytes` is one item in exactly the canonical form.
 */
export function canonicalProblem(bytes: Uint8Array): string | undefined {
  let pos = 0;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const fail = (why: string) => {
    throw new Error(`${why} at byte ${pos}`);
  };
  const arg = (ai: number): number => {
    if (ai < 24) return ai;
    if (ai > 27) fail(ai === 31 ? 'an indefinite length' : `reserved additional information ${ai}`);
    const size = 1 << (ai - 24);
    if (pos + size > bytes.length) fail('truncated');
    let n = 0;
    for (let i = 0; i < size; i++) n = n * 256 + bytes[pos++]!;
    if (n > Number.MAX_SAFE_INTEGER) fail('an argument above 2^53-1');
    const shortest = n < 24 ? 0 : n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x100000000 ? 4 : 8;
    if (shortest !== size) fail('a head that is not the shortest');
    return n;
  };
  const item = (depth: number): { key?: Uint8Array | undefined } => {
    if (pos >= bytes.length) fail('truncated');
    const start = pos;
    const ib = bytes[pos++]!;
    const major = ib >> 5;
    const ai = ib & 31;
    if (major === 7) {
      if (ai < 20 || ai > 22) fail('a float, undefined or a simple value');
      return {};
    }
    if (major === 6) fail('a tag');
    const n = arg(ai);
    if (major === 1 && n > Number.MAX_SAFE_INTEGER - 1) fail('an integer below -(2^53-1)');
    if (major === 2 || major === 3) {
      if (pos + n > bytes.length) fail('truncated');
      if (major === 3) {
        try {
          utf8.decode(bytes.subarray(pos, pos + n));
        } catch {
          fail('invalid UTF-8');
        }
      }
      pos += n;
      return { key: major === 3 ? bytes.subarray(start, pos) : undefined };
    }
    if ((major === 4 || major === 5) && depth > 64) fail('nesting deeper than 64');
    if (major === 4) for (let i = 0; i < n; i++) item(depth + 1);
    if (major === 5) {
      let prev: Uint8Array | undefined;
      for (let i = 0; i < n; i++) {
        const keyAt = pos;
        const { key } = item(depth + 1);
        if (key === undefined || bytes[keyAt]! >> 5 !== 3) fail('a map key that is not text');
        const name = Buffer.from(key!).toString('utf8', headLength(key!));
        if (name === '__proto__' || name === 'constructor' || name === 'prototype')
          fail(`the map key ${name}`);
        if (prev !== undefined && Buffer.compare(Buffer.from(prev), Buffer.from(key!)) >= 0)
          fail('map keys not in strictly increasing bytewise order');
        prev = key;
        item(depth + 1);
      }
    }
    return {};
  };
  try {
    item(1);
    if (pos !== bytes.length) fail('trailing bytes');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function headLength(encoded: Uint8Array): number {
  const ai = encoded[0]! & 31;
  return ai < 24 ? 1 : 1 + (1 << (ai - 24));
}

/** A path in a tree: its entry, or undefined. */
function lookup(objects: Objects, tree: string, path: string): TreeEntry | undefined {
  let entry: TreeEntry | undefined;
  let current = tree;
  for (const part of path.split('/')) {
    if (entry !== undefined) {
      if (entry.mode !== '40000') return undefined;
      current = entry.oid;
    }
    entry = objects.tree(current).find((e) => e.name === part);
    if (entry === undefined) return undefined;
  }
  return entry;
}

/** verifying.md: everything a verifier recomputes, in its order. */
export function verifyLedgerRef(dir: string, ref: string, schema: CddlSchema): Verified {
  const findings: Finding[] = [];
  const found = (subject: string, problem: string) => findings.push({ subject, problem });
  const tip = git(dir, ['rev-parse', '--verify', `${ref}^{commit}`])
    .toString()
    .trim();
  const commit = git(dir, ['cat-file', 'commit', tip]).toString();
  const rootTree = /^tree ([0-9a-f]{40})$/m.exec(commit)![1]!;
  const trailer = /^Ledger-Entry: (sha256:[0-9a-f]{64})$/m.exec(commit);
  if (trailer === null) throw new Error(`${ref}: the tip commit names no Ledger-Entry`);
  const tipEntry = trailer[1]!;

  // 1. The tree: four fan-out directories, leaves named by the sha256 of their content.
  const objects = new Objects(dir);
  const tops = objects.tree(rootTree);
  objects.prefetch(tops.map((t) => t.oid));
  const fans = tops.flatMap((top) => (top.mode === '40000' ? objects.tree(top.oid) : []));
  objects.prefetch(fans.map((f) => f.oid));
  const leaves = new Map<Kind, Map<string, string>>();
  for (const top of tops) {
    const kind = KINDS[top.name as Kind];
    if (kind === undefined || top.mode !== '40000') {
      found(top.name, 'not a ledger directory');
      continue;
    }
    const ids = new Map<string, string>();
    for (const fan of objects.tree(top.oid)) {
      if (!/^[0-9a-f]{2}$/.test(fan.name) || fan.mode !== '40000') {
        found(`${top.name}/${fan.name}`, 'not a fan-out tree');
        continue;
      }
      for (const leaf of objects.tree(fan.oid)) {
        const id = `sha256:${fan.name}${leaf.name}`;
        if (!/^[0-9a-f]{62}$/.test(leaf.name) || leaf.mode !== kind.mode)
          found(id, `not a ${top.name} leaf`);
        ids.set(id, leaf.oid);
      }
    }
    leaves.set(top.name as Kind, ids);
  }

  // 2. Every object: bytes hash to the path, are canonical, and match the CDDL.
  const recordTrees = leaves.get('records') ?? new Map<string, string>();
  const recordTreeEntries = new Map<string, Map<string, TreeEntry>>();
  const blobOids = new Map<string, { kind: Kind; id: string }>();
  for (const [kind, ids] of leaves)
    if (kind !== 'records') for (const [id, oid] of ids) blobOids.set(oid, { kind, id });
  objects.prefetch(recordTrees.values());
  for (const [id, tree] of recordTrees) {
    const entries = new Map(objects.tree(tree).map((e) => [e.name, e]));
    recordTreeEntries.set(id, entries);
    const record = entries.get('record');
    if (record === undefined) found(id, 'the record tree holds no record blob');
    else blobOids.set(record.oid, { kind: 'records', id });
  }
  objects.prefetch(blobOids.keys());
  const decoded = new Map<Kind, Map<string, any>>(
    Object.keys(KINDS).map((k) => [k as Kind, new Map()]),
  );
  for (const [oid, { kind, id }] of blobOids) {
    const bytes = objects.get(oid).bytes;
    if (`sha256:${sha256(bytes)}` !== id) {
      found(id, `its bytes hash to sha256:${sha256(bytes)}`);
      continue;
    }
    const problem = canonicalProblem(bytes);
    if (problem !== undefined) {
      found(id, `not canonical CBOR: ${problem}`);
      continue;
    }
    const value = decoder.decode(bytes);
    const mismatches = schema.validate(KINDS[kind].rule, value);
    if (mismatches.length > 0) {
      found(
        id,
        `does not match ${KINDS[kind].rule}: ${mismatches[0]!.path} ${mismatches[0]!.message}`,
      );
      continue;
    }
    decoded.get(kind)!.set(id, value);
  }

  // 3. The chain, from the tip entry down.
  const entries = decoded.get('log')! as Verified['entries'];
  const records = decoded.get('records')!;
  if (!entries.has(tipEntry)) found(tipEntry, 'the tip entry is not in the log');
  const reached = new Set<string>();
  const stack = entries.has(tipEntry) ? [tipEntry] : [];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (reached.has(id)) continue;
    reached.add(id);
    const entry = entries.get(id)!;
    let highest = 0;
    for (const prev of entry.prev) {
      const p = entries.get(prev);
      if (p === undefined) {
        found(id, `prev ${prev} is not in the log (a hole)`);
        continue;
      }
      highest = Math.max(highest, p.height);
      stack.push(prev);
    }
    if (entry.height !== highest + 1) found(id, `height ${entry.height}, expected ${highest + 1}`);
    if (entry.record !== null && !records.has(entry.record) && !recordTrees.has(entry.record))
      found(id, `names record ${entry.record}, which is not in the ledger`);
  }
  for (const id of entries.keys())
    if (!reached.has(id)) found(id, 'not reachable from the tip entry');
  const named = new Map<string, number>();
  for (const entry of entries.values())
    if (entry.record !== null) named.set(entry.record, (named.get(entry.record) ?? 0) + 1);
  for (const id of recordTrees.keys())
    if (named.get(id) !== 1) found(id, `named by ${named.get(id) ?? 0} log entries, expected 1`);
  const order = [...reached].sort((a, b) => {
    const d = entries.get(b)!.height - entries.get(a)!.height;
    return d !== 0 ? d : a < b ? -1 : 1;
  });

  // 4. Each record's tree against what the record says it observed.
  const inRecordTrees = (name: string) =>
    [...recordTreeEntries.values()].flatMap((t) => (t.has(name) ? [t.get(name)!.oid] : []));
  objects.prefetch([...inRecordTrees('base-commit'), ...inRecordTrees('evidence')]);
  objects.prefetch(inRecordTrees('evidence').flatMap((t) => objects.tree(t).map((e) => e.oid)));
  for (const [id, record] of records) {
    const tree = recordTreeEntries.get(id)!;
    const o = record.observed;
    if (tree.get('candidate')?.oid !== o.candidate.tree)
      found(id, 'candidate tree differs from observed.candidate.tree');
    if (tree.get('base')?.oid !== o.base.tree)
      found(id, 'base tree differs from observed.base.tree');
    const baseCommit = tree.get('base-commit');
    if (o.base.commit === null) {
      if (baseCommit !== undefined)
        found(id, 'a base-commit blob for a record with no base commit');
    } else if (baseCommit === undefined) found(id, 'no base-commit blob');
    else {
      const bytes = objects.get(baseCommit.oid).bytes;
      if (gitOid('commit', bytes) !== o.base.commit)
        found(id, 'base-commit bytes do not hash to observed.base.commit');
      if (/^tree ([0-9a-f]{40})$/m.exec(bytes.toString())?.[1] !== o.base.tree)
        found(id, "the base commit's tree is not observed.base.tree");
    }
    const kept = [
      ...o.witnesses.flatMap((w: any) => [w.stdout, w.stderr].filter(Boolean)),
      ...o.evidence.map((e: any) => e.file),
      ...(o.source ? [o.source] : []),
    ];
    const evidenceTree = tree.get('evidence');
    const evidence = new Map(
      evidenceTree ? objects.tree(evidenceTree.oid).map((e) => [e.name, e]) : [],
    );
    for (const k of kept) {
      const e = evidence.get(k.sha256);
      if (e === undefined || e.oid !== k.blob) {
        found(id, `evidence ${k.sha256} is not kept under evidence/ as blob ${k.blob}`);
        continue;
      }
      const bytes = objects.get(e.oid).bytes;
      if (sha256(bytes) !== k.sha256 || bytes.length !== k.size)
        found(id, `evidence ${k.sha256} has other bytes`);
    }
    for (const a of o.artifacts) {
      const e = lookup(objects, o.candidate.tree, a.path);
      if (e === undefined || e.oid !== a.blob) {
        found(id, `artifact ${a.path} is not blob ${a.blob} in the candidate tree`);
        continue;
      }
      const bytes = objects.get(e.oid).bytes;
      if (sha256(bytes) !== a.sha256 || bytes.length !== a.size)
        found(id, `artifact ${a.path} has other bytes`);
    }
  }

  // 5. Leaves beside the records: what each names, and what each signature signs.
  const attestations = decoded.get('attestations')!;
  for (const [id, a] of attestations)
    if (!recordTrees.has(a.subject)) found(id, `attests ${a.subject}, not in the ledger`);
  const signatures = new Map<
    string,
    Verified['signatures'] extends Map<string, infer S> ? S : never
  >();
  for (const [id, s] of decoded.get('signatures')!) {
    if (!recordTrees.has(s.subject) && !attestations.has(s.subject))
      found(id, `signs ${s.subject}, not in the ledger`);
    const signs = sshsigOver(s.armored, s.subject)
      ? 'id'
      : sshsigOver(s.armored, `ledger-recorded-here ${s.subject}`)
        ? 'recorded-here'
        : 'none';
    if (signs === 'none') found(id, `its SSHSIG (namespace ledger) is not over ${s.subject}`);
    signatures.set(id, { subject: s.subject, armored: s.armored, signs });
  }

  return { tipEntry, order, entries, records, signatures, attestations, findings };
}

const checkedSignatures = new Map<string, boolean>();

/** Whether `armored` is a valid SSHSIG in namespace "ledger" over exactly `message` (no trust). */
function sshsigOver(armored: string, message: string): boolean {
  const key = `${armored}\0${message}`;
  let ok = checkedSignatures.get(key);
  if (ok === undefined) {
    ok = sshsigCheck(armored, message);
    checkedSignatures.set(key, ok);
  }
  return ok;
}

function sshsigCheck(armored: string, message: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'sshsig-'));
  try {
    const sig = join(dir, 'sig');
    writeFileSync(sig, armored);
    const r = spawnSync('ssh-keygen', ['-Y', 'check-novalidate', '-n', 'ledger', '-s', sig], {
      input: message,
    });
    return r.status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
