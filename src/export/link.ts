/**
 * A record as an in-toto link: the step an agent performed, in the format `in-toto-verify`
 * checks against a layout. Materials are the files of the base tree (what the agent started
 * from), products the artifacts ledger observed in the candidate tree, each with its sha256;
 * the command is the witness ledger ran (through `/bin/sh -c`, as it was run), and the
 * byproducts its return value and the digests of its kept output — not the output itself,
 * which may be large or hold masked secrets, and stays in the ledger.
 *
 * Pure: the caller reads the base tree and the key. in-toto drops unknown fields of `signed`
 * before it recomputes the signed bytes, so `signed` carries exactly the seven fields of a
 * link and anything else ledger knows goes into the opaque `environment` and `byproducts`.
 */
import { LedgerError } from '../model/errors.js';
import type { LedgerRecord, WitnessObservation } from '../model/record.js';
import { canonicalJsonBytes, compareCodePoints, type CanonicalJson } from './canonical-json.js';
import { signBytes, type SigningKey } from './signing-key.js';

/** Step names become file names (`<step>.<keyid prefix>.link`): no separators, no dot files. */
const STEP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const DEFAULT_STEP = 'handoff';

type HashDict = { sha256: string };

export interface LinkSigned {
  _type: 'link';
  name: string;
  command: string[];
  materials: Record<string, HashDict>;
  products: Record<string, HashDict>;
  byproducts: Record<string, CanonicalJson>;
  environment: Record<string, string>;
}

export interface Metablock {
  signatures: { keyid: string; sig: string }[];
  signed: LinkSigned;
}

export function checkStepName(step: string): string {
  if (!STEP_NAME.test(step)) {
    throw new LedgerError('USAGE', `--step ${JSON.stringify(step)} is not a usable step name`, {
      problems: [
        {
          path: '--step',
          message: 'the step name is part of the link file name',
          expected: 'letters, digits, ".", "_" or "-", starting with a letter or digit',
          got: step,
        },
      ],
    });
  }
  return step;
}

/** The file name in-toto looks for: `<step>.<first 8 hex of the key id>.link`. */
export function linkFileName(step: string, keyid: string): string {
  return `${checkStepName(step)}.${keyid.slice(0, 8)}.link`;
}

export function toLink(input: {
  id: string;
  record: LedgerRecord;
  /** Path → sha256 hex of every file in the base tree. */
  materials: ReadonlyMap<string, string>;
  step: string;
}): LinkSigned {
  const { record } = input;
  const { witnesses, base, candidate, branch } = record.observed;
  const [first] = witnesses;
  return {
    _type: 'link',
    name: checkStepName(input.step),
    command: first ? ['/bin/sh', '-c', first.command] : [],
    materials: hashDicts([...input.materials]),
    products: hashDicts(record.observed.artifacts.map((a) => [a.path, a.sha256])),
    byproducts: {
      ...(first ? witnessByproducts(first) : {}),
      ...(witnesses.length > 1
        ? {
            witnesses: witnesses.map((w) => ({ command: w.command, ...witnessByproducts(w) })),
          }
        : {}),
    },
    environment: {
      'ledger-record': input.id,
      ...(base.commit === null ? {} : { 'base-commit': base.commit }),
      'base-tree': base.tree,
      'candidate-tree': candidate.tree,
      ...(branch === undefined ? {} : { branch }),
    },
  };
}

/** Signs the link's canonical bytes, as `in-toto-run` and `in-toto-sign` do. */
export function signLink(signed: LinkSigned, key: SigningKey): Metablock {
  const bytes = canonicalJsonBytes(signed as unknown as CanonicalJson);
  const sig = Buffer.from(signBytes(key, bytes)).toString('hex');
  return { signatures: [{ keyid: key.keyid, sig }], signed };
}

/** A link file's text: indented and key-sorted like in-toto's own (the signature is over the
 * canonical bytes, not these). */
export function linkFileText(metablock: Metablock): string {
  return `${JSON.stringify(sortKeys(metablock as unknown as CanonicalJson), null, 1)}\n`;
}

function witnessByproducts(w: WitnessObservation): Record<string, CanonicalJson> {
  return {
    ...(w.exitCode === null ? {} : { 'return-value': w.exitCode }),
    ...(w.signal === null ? {} : { signal: w.signal }),
    ...(w.timedOut ? { 'timed-out': true } : {}),
    ...(w.stdout ? { 'stdout-sha256': w.stdout.sha256 } : {}),
    ...(w.stderr ? { 'stderr-sha256': w.stderr.sha256 } : {}),
  };
}

// Object.fromEntries defines own properties, so a file named `__proto__` stays a file name.
function hashDicts(entries: [string, string][]): Record<string, HashDict> {
  return Object.fromEntries(
    entries.sort(([a], [b]) => compareCodePoints(a, b)).map(([path, sha256]) => [path, { sha256 }]),
  );
}

function sortKeys(value: CanonicalJson): CanonicalJson {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortKeys);
  const object = value as { readonly [key: string]: CanonicalJson };
  return Object.fromEntries(
    Object.keys(object)
      .sort(compareCodePoints)
      .map((key) => [key, sortKeys(object[key]!)]),
  );
}
