/**
 * Mainark agent handoffs (seed 001, MAI-36; the seed is the whole spec): the agent writes only
 * `.mainark/handoff-<ID>.partial.json`; Mainark (here: ledger) authors everything else. See
 * README.md in this folder.
 */
import type { Detection, FormatModule, FormatStats, Sniff } from '../contract.js';
import { isPlainObject } from '../kit/json.js';
import { isObject } from '../kit/values.js';
import { emitPartial, emitReviewRequest } from './emit.js';
import { MAINARK_VIEW_SCHEMAS } from './outputs.js';
import { parseMainark } from './parse.js';
import { AGENT_KEYS, PARTIAL_FILE, emptyHandoff } from './partial.js';
import { mainarkStats } from './stats.js';
import { mainarkViews } from './views.js';

function detect(input: Sniff): Detection {
  const named = input.fileName !== undefined && PARTIAL_FILE.test(input.fileName);
  const value = input.json();
  const signals = named ? ['a handoff-<ID>.partial.json file name'] : [];
  if (!isPlainObject(value)) return { score: named ? 0.5 : 0, signals };
  const keys = Object.keys(value);
  const agent = keys.filter((k) => (AGENT_KEYS as readonly string[]).includes(k));
  const allAgent = keys.length > 0 && agent.length === keys.length;
  if (allAgent) signals.push(`only agent-partial keys (${agent.join(', ')})`);
  if (named) return { score: allAgent || keys.length === 0 ? 1 : 0.8, signals };
  return { score: allAgent ? 0.7 : 0, signals };
}

/**
 * `satisfies`, not a type annotation: the registry's fold keeps the types of the `show --json`
 * keys this module declares, so the typed library's `handoffStats` is checked at compile time.
 */
export const mainark = {
  name: 'mainark',
  title: 'Mainark agent partial',
  readerRevision: 1,
  detect,
  parse: parseMainark,
  fromFlags: ({ task }) => ({ ok: true, handoff: emptyHandoff(task) }),
  rederive(claims) {
    const stats = claims.extra?.['handoffStats'];
    return isObject(stats) && stats['handoff_present'] === false
      ? emptyHandoff(claims.task)
      : undefined;
  },
  // A partial states no status: the reviewer decides.
  statusOf: () => undefined,
  wordFor: () => undefined,
  reasonCodes: {
    MAINARK_NO_PARTIAL:
      'the run left no agent partial: partial (review falls back to the ticket and the diff)',
    MAINARK_VALIDATION_NOT_RUN: 'no validation log was named on the command line: a note',
  },
  emitters: [
    { name: 'mainark', title: 'Mainark agent partial (JSON)', emit: emitPartial },
    {
      name: 'mainark-review',
      title: 'Mainark ReviewRequestHandoff (JSON)',
      view: true,
      emit: emitReviewRequest,
    },
  ],
  views: {
    schemas: MAINARK_VIEW_SCHEMAS,
    // The same function show reads without the registry (src/formats/views.ts).
    of: mainarkViews,
  },
  stats: mainarkStats as unknown as FormatStats<unknown>,
} satisfies FormatModule;
