/**
 * `ledger sync`'s body, without oclif: commands/sync.ts gives it the parsed argument and flags,
 * and bin/run.js calls it directly (src/cli/fast-sync.ts) for a command line it fully
 * understands, so that a small sync pays no start-up for oclif (issues 19 and 21). One body
 * for both paths, so they cannot sync or answer differently.
 */
import { syncRepository } from '../app/sync.js';
import type { SyncStart } from '../app/sync-start.js';
import type { Output } from './output.js';

/** The flags of `ledger sync` as oclif hands them over (defaults applied). */
export interface SyncFlags {
  push: boolean;
  pushOnly: boolean;
  checkpoint: boolean;
}

/**
 * Syncs the repository at `cwd` with `remote` (default: upstream, else origin); what `sync`
 * prints. `start`: the fast path's head start for this same command line (app/sync-start.ts).
 */
export async function syncView(
  cwd: string,
  remote: string | undefined,
  flags: SyncFlags,
  progress: (message: string) => void,
  start?: SyncStart,
): Promise<Output> {
  const result = await syncRepository(
    {
      cwd,
      ...(remote === undefined ? {} : { remote }),
      push: flags.push,
      ...(flags.pushOnly ? { pushOnly: true } : {}),
      ...(flags.checkpoint ? { checkpoint: true } : {}),
      onProgress: progress,
    },
    start,
  );
  if (!result.fetched) {
    return {
      json: { ok: true, ...result },
      text: [
        result.pushed
          ? `published to ${result.remote} ${result.publishedTo}: sent ${result.sent} log entr${result.sent === 1 ? 'y' : 'ies'}`
          : `${result.remote} ${result.publishedTo} already holds this ledger`,
        ...(result.after === undefined ? [] : [`  refs/ledger/log ${result.after}`]),
        "  --push-only: the remote's other refs were not fetched (ledger sync takes them in)",
      ].join('\n'),
    };
  }
  const lines = [
    result.action === 'up-to-date' && !result.pushed
      ? `ledger in sync with ${result.remote}`
      : `synced with ${result.remote}: ${result.action}`,
    `  received ${result.received.length} record(s)${result.pushed ? `, sent ${result.sent} log entr${result.sent === 1 ? 'y' : 'ies'}` : ''}`,
  ];
  if (result.after !== undefined) lines.push(`  refs/ledger/log ${result.after}`);
  if (result.attempts > 1)
    lines.push(`  ${result.remote} moved during the sync; took ${result.attempts} rounds`);
  if (result.checkpoint !== undefined)
    lines.push(
      `  ${result.checkpoint.ref} ${result.checkpoint.published ? 'published' : 'unchanged'}; retired ${result.checkpoint.retired.length} writer ref(s)`,
    );
  if (result.shallow) lines.push('  shallow clone: the ledger history was checked to be complete');
  return {
    json: { ok: true, ...result },
    text: lines.join('\n'),
    ...(result.notices.length === 0 ? {} : { notice: result.notices.join('\n') }),
  };
}
