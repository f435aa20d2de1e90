/**
 * Many writer refs without many clones (issue 19): each writer's chain of real records is built
 * through the library (`appendRecord`) in a memory store of its own, its objects written into
 * `cwd`'s repository, and every writer's tip pushed to the remote's `refs/ledger/writers/<id>`
 * in one push. What lands is what that many clones recording and syncing once would publish.
 */
import { spawnSync } from 'node:child_process';
import { encodeCanonical, type CborValue } from '../../src/canonical/index.js';
import { appendRecord } from '../../src/ledger/append.js';
import { LOG_REF } from '../../src/ledger/layout.js';
import { LEDGER_VERSION } from '../../src/model/version.js';
import { deriveEffectiveStatus } from '../../src/record/status.js';
import { MemoryStore } from '../../src/store/memory.js';
import { withRepo } from '../../src/app/repo.js';
import { git } from './git.js';

export interface Planted {
  /** The writer refs, in name order. */
  refs: string[];
  /** Every record id planted. */
  records: string[];
}

export async function plantWriters(
  cwd: string,
  remote: string,
  writers: number,
  perWriter = 1,
): Promise<Planted> {
  const base = git(cwd, 'rev-parse', 'HEAD');
  const tree = git(cwd, 'rev-parse', 'HEAD^{tree}');
  const baseBytes = Uint8Array.from(spawnSync('git', ['cat-file', 'commit', base], { cwd }).stdout);
  const clock = Date.parse('2026-01-01T00:00:00Z');
  const records: string[] = [];
  const tips: [string, string][] = [];
  await withRepo(cwd, async ({ store }) => {
    for (let w = 0; w < writers; w++) {
      const memory = new MemoryStore();
      for (let i = 0; i < perWriter; i++) {
        const now = new Date(clock + (w * perWriter + i) * 1000);
        const { status, reasons } = deriveEffectiveStatus('success', [], []);
        const appended = await appendRecord(
          memory,
          {
            recordBytes: encodeCanonical({
              schema: 'ledger.record/v1',
              format: 'ledger',
              claims: { status: 'success', summary: `writer ${w} record ${i}` },
              observed: {
                recordedAt: now.toISOString(),
                ledgerVersion: LEDGER_VERSION,
                base: { commit: base, tree },
                candidate: { tree },
                branch: 'main',
                artifacts: [],
                witnesses: [],
                evidence: [],
                effectiveStatus: status,
                // reasons' optional `subject` is never undefined here: no reasons for success
                reasons: reasons as unknown as CborValue,
              },
            }),
            candidateTree: tree,
            baseTree: tree,
            baseCommitBytes: baseBytes,
            evidence: new Map(),
          },
          now,
        );
        records.push(appended.id);
      }
      for (const object of memory.objects.values()) await store.write(object.type, object.bytes);
      tips.push([w.toString(16).padStart(32, '0'), memory.refs.get(LOG_REF)!]);
    }
  });
  const input = tips.map(([id, tip]) => `update refs/plant/${id} ${tip}\n`).join('');
  const made = spawnSync('git', ['update-ref', '--stdin'], { cwd, input });
  if (made.status !== 0) throw new Error(`git update-ref: ${made.stderr.toString()}`);
  git(cwd, 'push', '-q', remote, 'refs/plant/*:refs/ledger/writers/*');
  return { refs: tips.map(([id]) => `refs/ledger/writers/${id}`), records };
}
