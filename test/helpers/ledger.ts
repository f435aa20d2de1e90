/**
 * Building ledgers in memory for pure tests: records with real-shaped observations whose
 * candidate trees exist in the MemoryStore.
 */
import { createHash } from 'node:crypto';
import { encodeCanonical, type CborValue } from '../../src/canonical/index.js';
import { appendRecord } from '../../src/ledger/append.js';
import { RECORD_SCHEMA, type Claims, type LedgerRecord } from '../../src/model/record.js';
import { stripUndefined } from '../../src/app/record.js';
import { encodeCommit, encodeTree, MODE } from '../../src/store/objects.js';
import { MemoryStore } from '../../src/store/memory.js';

const enc = new TextEncoder();

export interface Built {
  store: MemoryStore;
  ids: string[];
}

export async function candidate(
  store: MemoryStore,
  files: Record<string, string>,
): Promise<string> {
  // Nested paths: build directory trees bottom-up.
  const root: Record<string, unknown> = {};
  for (const [path, content] of Object.entries(files)) {
    const parts = path.split('/');
    let node = root;
    for (const dir of parts.slice(0, -1)) node = (node[dir] ??= {}) as Record<string, unknown>;
    node[parts.at(-1)!] = content;
  }
  const write = async (node: Record<string, unknown>): Promise<string> => {
    const entries = [];
    for (const [name, value] of Object.entries(node)) {
      if (typeof value === 'string')
        entries.push({ mode: MODE.file, name, oid: await store.write('blob', enc.encode(value)) });
      else
        entries.push({ mode: MODE.tree, name, oid: await write(value as Record<string, unknown>) });
    }
    return store.write('tree', encodeTree(entries));
  };
  return write(root);
}

export async function makeRecord(
  store: MemoryStore,
  options: {
    claims?: Partial<Claims>;
    files?: Record<string, string>;
    /** The base commit's files (default: a README only). */
    baseFiles?: Record<string, string>;
    artifacts?: string[];
    at?: Date;
  } = {},
): Promise<{
  record: LedgerRecord;
  bytes: Uint8Array;
  baseCommitBytes: Uint8Array;
  baseTree: string;
  candidateTree: string;
}> {
  const files = options.files ?? { 'src/a.ts': 'one\ntwo\nthree\n' };
  const candidateTree = await candidate(store, files);
  const baseTree = await candidate(store, options.baseFiles ?? { 'README.md': '# base\n' });
  const who = { name: 'T', email: 't@example.com', timestamp: 1_700_000_000, timezone: '+0000' };
  const baseCommitBytes = encodeCommit({
    tree: baseTree,
    parents: [],
    author: who,
    committer: who,
    message: 'base\n',
  });
  const baseCommit = await store.write('commit', baseCommitBytes);
  const artifacts = [];
  for (const path of options.artifacts ?? []) {
    const content = enc.encode(files[path]!);
    artifacts.push({
      path,
      sha256: createHash('sha256').update(content).digest('hex'),
      size: content.length,
      blob: await store.write('blob', content),
    });
  }
  const record: LedgerRecord = {
    schema: RECORD_SCHEMA,
    format: 'ledger',
    claims: { status: 'success', summary: 'test', ...options.claims },
    observed: {
      recordedAt: (options.at ?? new Date('2026-01-01T00:00:00.000Z')).toISOString(),
      ledgerVersion: '0.0.0-test',
      base: { commit: baseCommit, tree: baseTree },
      candidate: { tree: candidateTree },
      artifacts,
      witnesses: [],
      evidence: [],
      effectiveStatus: 'success',
      reasons: [],
    },
  };
  const bytes = encodeCanonical(stripUndefined(record) as CborValue);
  return { record, bytes, baseCommitBytes, baseTree, candidateTree };
}

export async function buildLedger(count: number, store = new MemoryStore()): Promise<Built> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const made = await makeRecord(store, {
      claims: { task: `T-${i}`, summary: `record ${i}` },
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    });
    const appended = await appendRecord(
      store,
      {
        recordBytes: made.bytes,
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: made.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    );
    ids.push(appended.id);
  }
  return { store, ids };
}
