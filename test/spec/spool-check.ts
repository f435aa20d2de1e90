/**
 * The check behind "every object the suite writes matches the spec" (issue 22): each file the
 * writers spooled (src/ledger/spool.ts) is held to spec/ by the same independent code as the
 * spec test — its name is its id's hash, its bytes are canonical (encoding.md), and its decoded
 * value matches the CDDL rule of its kind. Nothing here comes from src/.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decoder } from 'cbor-x';
import type { CddlSchema } from '../helpers/cddl-validator.js';
import { canonicalProblem } from './independent-verifier.js';

/** The CDDL rule each spooled kind must match (the writer names the kind, not the bytes). */
export const SPOOL_RULES: Readonly<Record<string, string>> = {
  record: 'ledger-record',
  'lifecycle-step': 'lifecycle-step',
  'log-entry': 'log-entry',
  signature: 'signature',
  attestation: 'attestation',
};

const NAME = /^([a-z-]+)-([0-9a-f]{64})$/;
const decoder = new Decoder({ mapsAsObjects: true, useRecords: false });

export interface SpoolCheck {
  /** Objects checked, by kind. */
  counts: Record<string, number>;
  /** One line per problem: the file, the rule, where in the value and what. */
  problems: string[];
}

export function checkSpool(dir: string, schema: CddlSchema): SpoolCheck {
  const counts: Record<string, number> = {};
  const problems: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    // A writer killed between writing and naming its copy (crash tests) leaves one of these.
    if (name.startsWith('.tmp-')) continue;
    const match = NAME.exec(name);
    const rule = match ? SPOOL_RULES[match[1]!] : undefined;
    if (match === null || rule === undefined) {
      problems.push(`${name}: not a spooled object's name (<kind>-<64 hex>)`);
      continue;
    }
    const [, kind, hex] = match as unknown as [string, string, string];
    counts[kind] = (counts[kind] ?? 0) + 1;
    const bytes = readFileSync(join(dir, name));
    const where = `${kind} sha256:${hex} (rule ${rule})`;
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (hash !== hex) problems.push(`${where}: its bytes hash to sha256:${hash}`);
    const canonical = canonicalProblem(bytes);
    if (canonical !== undefined) {
      problems.push(`${where}: not canonical CBOR: ${canonical}`);
      continue;
    }
    for (const m of schema.validate(rule, decoder.decode(bytes)))
      problems.push(`${where}: ${m.path} ${m.message}`);
  }
  return { counts, problems };
}
