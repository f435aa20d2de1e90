// The records the sync and many-writers benches build: a plain `ledger` handoff on the seed
// commit, appended through the library (src/ledger/append.js) to a memory store, exactly what
// `ledger record` of a change-free handoff would store, without a process per record.
import { join } from 'node:path';
import { ROOT } from './common.mjs';

const dist = (p) => import(join(ROOT, 'dist', 'src', p));

/**
 * An appender for records on `seed` ({ base, tree, baseBytes }): `append(store, { now, summary,
 * task })` adds one record to the store's ledger.
 */
export async function benchRecords(seed) {
  const { appendRecord } = await dist('ledger/append.js');
  const { encodeCanonical } = await dist('canonical/index.js');
  const { LEDGER_VERSION } = await dist('model/version.js');
  const { deriveEffectiveStatus } = await dist('record/status.js');
  const { status, reasons } = deriveEffectiveStatus('success', [], []);
  return async function append(store, { now, summary, task }) {
    const record = {
      schema: 'ledger.record/v1',
      format: 'ledger',
      claims: { status: 'success', summary, task },
      observed: {
        recordedAt: now.toISOString(),
        ledgerVersion: LEDGER_VERSION,
        base: { commit: seed.base, tree: seed.tree },
        candidate: { tree: seed.tree },
        branch: 'main',
        artifacts: [],
        witnesses: [],
        evidence: [],
        effectiveStatus: status,
        reasons,
      },
    };
    await appendRecord(
      store,
      {
        recordBytes: encodeCanonical(record),
        candidateTree: seed.tree,
        baseTree: seed.tree,
        baseCommitBytes: seed.baseBytes,
        evidence: new Map(),
      },
      now,
    );
  };
}
