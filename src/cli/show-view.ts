/**
 * `ledger show ID`'s answer without `--as`, without oclif: commands/show.ts gives it the parsed
 * flags, and bin/run.js calls it directly (src/cli/fast-path.ts) for a command line it fully
 * understands, so that looking at one record costs no more start-up than it needs (issue 21).
 * One body for both paths, so they cannot answer differently. `--as` stays the command's: it
 * writes stored bytes and warnings through the base's writers.
 */
import { heldEntriesWarning } from '../app/held-entries.js';
import { showRecord } from '../app/show.js';
import { toShowJson } from '../app/views.js';
import { quotedBy, sanitizeLine } from '../paths/index.js';
import type { Output } from './output.js';
import { renderRecord } from './render-record.js';

export interface ShowOptions {
  id?: string;
  latestOfTask?: string;
  policyFile?: string;
}

/** One record of the repository at `cwd`, as `ledger show` prints it. */
export async function showView(cwd: string, options: ShowOptions): Promise<Output> {
  const shown = await showRecord({ cwd, ...options });
  return {
    json: toShowJson(shown),
    text:
      renderRecord(shown.id, shown.record, shown.signatures ?? [], shown.observedProof) +
      lifecycleLine(shown.extra) +
      concurrentLine(shown.extra),
    ...(shown.rollback === undefined ? {} : { warning: heldEntriesWarning(shown.rollback) }),
  };
}

/**
 * `--latest` with more than one head: the merged order put this one first, which is causal
 * order, not time, so the others are named rather than hidden (red team, round eleven).
 */
export function concurrentLine(extra: Record<string, unknown>): string {
  const others = extra['concurrent'];
  if (!Array.isArray(others) || others.length === 0) return '';
  const named = others.slice(0, 5).join(', ');
  const more = others.length > 5 ? ` and ${others.length - 5} more` : '';
  return `\nconcurrent: ${others.length} other record(s) of this task do not descend from this one, nor it from them — none is newer (the ledger's order is causal, not by time; this one is only first in it): ${named}${more}`;
}

/**
 * The lifecycle state next to the record, because the handoff's own status (a KXM manifest's
 * `accepted`) reads like one: the state comes only from the steps ledger appended. A step's
 * `--by` is quoted: bare, it could write "(claimed) -- signature verified: …" after itself.
 */
function lifecycleLine(extra: Record<string, unknown>): string {
  const lifecycle = extra['lifecycle'] as
    | {
        state?: unknown;
        chain?: unknown;
        step?: string;
        by?: string;
        at?: string;
        with?: string;
        setAsideDetail?: string[];
        counted?: { line?: unknown };
      }
    | undefined;
  const step = extra['lifecycleStep'] as { action: string; of: string; by?: string } | undefined;
  const lines: string[] = [];
  if (step !== undefined)
    lines.push(
      `\nthis is a lifecycle step: ${sanitizeLine(step.action)} of ${step.of}${step.by === undefined ? '' : ` by ${sanitizeLine(quotedBy(step.by))} (claimed)`}`,
    );
  if (lifecycle === undefined || typeof lifecycle.state !== 'string') return lines.join('');
  const steps = Array.isArray(lifecycle.chain) ? lifecycle.chain.length - 1 : 0;
  const who =
    lifecycle.step === undefined
      ? ''
      : ` by step ${lifecycle.step}${lifecycle.by === undefined ? '' : `, by ${sanitizeLine(quotedBy(lifecycle.by))} (claimed)`}${lifecycle.at === undefined ? '' : `, at ${lifecycle.at}`}${lifecycle.with === undefined ? '' : `, with ${lifecycle.with}`}`;
  lines.push(
    `\nlifecycle: ${sanitizeLine(lifecycle.state)}${who} (from ${steps} accept/reject/supersede step(s); a handoff's own status is only its claim)`,
  );
  // A fork's branch not followed (src/app/lifecycle-fork.ts): never dropped without a word.
  for (const line of lifecycle.setAsideDetail ?? [])
    lines.push(`\nlifecycle: ${sanitizeLine(line)}`);
  // What the auditor's requireReviewer counts (src/app/show.ts), when a policy asks for it.
  if (typeof lifecycle.counted?.line === 'string')
    lines.push(
      `\nlifecycle under the policy (lifecycle.requireReviewer): ${sanitizeLine(lifecycle.counted.line)}`,
    );
  return lines.join('');
}
