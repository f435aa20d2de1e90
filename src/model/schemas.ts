/**
 * The zod schemas of stored records and log entries, loaded on first use. Reading an empty
 * ledger, printing help or a version must not import zod (tens of milliseconds of start-up,
 * see bench/startup.mjs); the first record or log entry decoded pays that once per process.
 */
let loading: Promise<typeof import('./record.js')> | undefined;

export function recordSchemas(): Promise<typeof import('./record.js')> {
  loading ??= import('./record.js');
  return loading;
}

let loadingLeaves: Promise<typeof import('./attestation.js')> | undefined;

/**
 * The zod schemas of signatures and attestations, loaded likewise: by the first leaf read, not
 * by every verify of a ledger that holds none or whose tip is cached.
 */
export function leafSchemas(): Promise<typeof import('./attestation.js')> {
  loadingLeaves ??= import('./attestation.js');
  return loadingLeaves;
}
