/**
 * What a record's format adds to `show --json` (the contract's `views.of`), without the registry:
 * `show` runs on every look at a record, and importing the registry is importing every format's
 * parser, yaml and zod — none of which a record's views need (issue 21). Each entry is the very
 * function the format's module carries as `views.of`; test/formats/views-provider.test.ts holds
 * the table to the registry, so a format that adds views and is not listed here fails a test.
 */
import type { LedgerRecord } from '../model/record.js';
import { LIFECYCLE_FORMAT, type FormatName } from '../model/vocabulary.js';
import type { FormatViews } from './contract.js';
import { lifecycleFormat } from './lifecycle.js';
import { mainarkViews } from './mainark/views.js';

/** The formats with views, by name; a format absent here adds nothing. */
export const FORMAT_VIEWS: ReadonlyMap<FormatName, FormatViews['of']> = new Map<
  FormatName,
  FormatViews['of']
>([['mainark', mainarkViews]]);

/**
 * The keys the record's format adds, by the rules `recordModule` gives it (a lifecycle step
 * follows the format that defines the lifecycle).
 */
export function formatViewsOf(
  record: LedgerRecord,
  source: Uint8Array | undefined,
): Record<string, unknown> {
  const format = record.format === LIFECYCLE_FORMAT ? lifecycleFormat.name : record.format;
  return { ...FORMAT_VIEWS.get(format)?.(record, source) };
}
