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
  /** How many files had at least one problem. */
  failed: number;
}

export function checkSpool(dir: string, schema: CddlSchema): SpoolCheck {
  const counts: Record<string, number> = {};
  const problems: string[] = [];
  let failed = 0;
  for (const name of readdirSync(dir).sort()) {
    const before = problems.length;
    checkOne(name);
    if (problems.length > before) failed++;
  }
  return { counts, problems, failed };

  function checkOne(name: string): void {
    // A writer killed between writing and naming its copy (crash tests) leaves one of these.
    if (name.startsWith('.tmp-')) return;
    const match = NAME.exec(name);
    const rule = match ? SPOOL_RULES[match[1]!] : undefined;
    if (match === null || rule === undefined) {
      problems.push(`${name}: not a spooled object's name (<kind>-<64 hex>)`);
      return;
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
      return;
    }
    const value: unknown = decoder.decode(bytes);
    const mismatches = schema.validate(rule, value);
    if (mismatches.length === 0) return;
    // The kind's rule decides; the version's rule, when it also fails, says why more precisely.
    const version = versionRule(rule, value, schema);
    const precise = version === undefined ? [] : schema.validate(version, value);
    for (const m of precise.length > 0 ? precise : mismatches)
      problems.push(
        `${where}${precise.length > 0 ? ` as ${version}` : ''}: ${m.path} ${m.message}`,
      );
  }
}

/**
 * A record or attestation names its version in `schema`; that version's rule (one choice of the
 * kind's rule, pinned by its literal `schema`) says what is wrong with it, where the kind's rule
 * only says that it matches none of the versions.
 */
function versionRule(rule: string, value: unknown, schema: CddlSchema): string | undefined {
  if (rule !== 'ledger-record' && rule !== 'attestation') return undefined;
  const named = (value as { schema?: unknown } | null)?.schema;
  const version =
    typeof named === 'string' ? /^ledger\.(record|attestation)\/v(\d+)$/.exec(named) : null;
  if (version === null || !rule.endsWith(version[1]!)) return undefined;
  const candidate = `${version[1]}-v${version[2]}`;
  return schema.ruleNames.includes(candidate) ? candidate : undefined;
}
