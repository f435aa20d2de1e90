/**
 * A record as an in-toto link: the step an agent performed, in the format `in-toto-verify`
 * checks against a layout. Materials are the files of the base tree (what the agent started
 * from) and products the files of the candidate tree (what it handed over), as `in-toto-run`
 * records a work tree before and after a step — or, narrower, the artifacts ledger observed;
 * each with its sha256. The command is the witness ledger ran (through `/bin/sh -c`, as it was
 * run), and the byproducts its result and the digests of its kept output — not the output
 * itself, which may be large or hold masked secrets, and stays in the ledger.
 *
 * A signed link vouches for what it says, so a witness's result appears as in-toto's own
 * `return-value` only when the export-time verification confirmed it; an unverified one (only
 * exported with `--allow-unverified`) is `recorded-return-value`, and every witness carries its
 * `verdict`. Byproducts are opaque to `in-toto-verify`, so this stays a valid link.
 *
 * Pure: the caller reads the trees and the key. in-toto drops unknown fields of `signed`
 * before it recomputes the signed bytes, so `signed` carries exactly the seven fields of a
 * link and anything else ledger knows goes into the opaque `environment` and `byproducts`.
 */
import { LedgerError } from '../model/errors.js';
import type { LedgerRecord, WitnessObservation } from '../model/record.js';
import type { ExportedWitnesses, WitnessVerdict } from './witness-verdicts.js';
import { canonicalJsonBytes, compareCodePoints, type CanonicalJson } from './canonical-json.js';
import { signBytes, type SigningKey } from './signing-key.js';
import type { NotListed } from './tree-symlinks.js';

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
  environment: Record<string, CanonicalJson>;
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

/** Contradicted checks named in a link; the rest are counted (verify lists them all). */
const MAX_LISTED = 50;

/** The file name in-toto looks for: `<step>.<first 8 hex of the key id>.link`. */
export function linkFileName(step: string, keyid: string): string {
  return `${checkStepName(step)}.${keyid.slice(0, 8)}.link`;
}

export function toLink(input: {
  id: string;
  record: LedgerRecord;
  /** Path → sha256 hex of every file in the base tree. */
  materials: ReadonlyMap<string, string>;
  /** Path → sha256 hex of every file in the candidate tree (or of the artifacts only). */
  products: ReadonlyMap<string, string>;
  step: string;
  /** The export-time verdict of each witness. */
  witnesses: ExportedWitnesses;
  /** Digest of the policy the witnesses were verified under. */
  policy: string;
  /** The record's own checks that did not hold at export time. */
  contradicted: readonly { check: string; subject: string }[];
  /** Paths of either tree that a checkout has but the link cannot list with a digest. */
  notListed?: { materials: readonly NotListed[]; products: readonly NotListed[] };
  /** The record's lifecycle in one line (pending, or the step that set its state and who signed). */
  lifecycle?: string;
  /** With `--base-ref`: where the materials come from and what the base was checked against. */
  materialsFrom?: string;
}): LinkSigned {
  const notListed = [
    ...(input.notListed?.materials ?? []).map((n) => ({ in: 'materials', ...n })),
    ...(input.notListed?.products ?? []).map((n) => ({ in: 'products', ...n })),
  ];
  const { record } = input;
  const { witnesses, base, candidate, branch } = record.observed;
  const [first] = witnesses;
  const verdict = (i: number): WitnessVerdict =>
    input.witnesses.each[i] ?? { verdict: 'unverifiable', detail: 'no verdict for this witness' };
  return {
    _type: 'link',
    name: checkStepName(input.step),
    command: first ? ['/bin/sh', '-c', first.command] : [],
    materials: hashDicts([...input.materials]),
    products: hashDicts([...input.products]),
    byproducts: {
      ...(first ? witnessByproducts(first, verdict(0)) : {}),
      ...(witnesses.length > 1
        ? {
            witnesses: witnesses.map((w, i) => ({
              command: w.command,
              ...witnessByproducts(w, verdict(i)),
            })),
          }
        : {}),
    },
    environment: {
      'ledger-record': input.id,
      ...(base.commit === null ? {} : { 'base-commit': base.commit }),
      'base-tree': base.tree,
      'candidate-tree': candidate.tree,
      ...(branch === undefined ? {} : { branch }),
      'ledger-witnesses': input.witnesses.status,
      'ledger-policy': input.policy,
      // A link has no verdict field of its own: without these a contradicted record (a wrong
      // artifact digest, a claimed file that is absent) was exported as a clean step.
      'ledger-verdict': input.contradicted.length === 0 ? 'no claim contradicted' : 'contradicted',
      ...(input.contradicted.length === 0
        ? {}
        : {
            'ledger-contradicted': input.contradicted
              .slice(0, MAX_LISTED)
              .map((c) => `${c.check} ${c.subject}`)
              .concat(
                input.contradicted.length > MAX_LISTED
                  ? [
                      `… and ${input.contradicted.length - MAX_LISTED} more (ledger verify ${input.id})`,
                    ]
                  : [],
              ),
          }),
      // A layout knows nothing of ledger's steps: without this a handoff a reviewer rejected
      // was exported as a clean step (red team, round twelve).
      ...(input.lifecycle === undefined ? {} : { 'ledger-lifecycle': input.lifecycle }),
      ...(input.materialsFrom === undefined
        ? {}
        : { 'ledger-materials-from': input.materialsFrom }),
      // Signed, so a layout's owner sees what the step rules could not: a symlink out of the
      // tree or a submodule is in a checkout (in-toto-run would list what it reads there).
      ...(notListed.length === 0 ? {} : { 'ledger-not-listed': notListed }),
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

function witnessByproducts(
  w: WitnessObservation,
  v: WitnessVerdict,
): Record<string, CanonicalJson> {
  // A consumer that reads in-toto's `return-value` must only ever find a verified one.
  const name = (field: string) => (v.verdict === 'verified' ? field : `recorded-${field}`);
  return {
    ...(w.exitCode === null ? {} : { [name('return-value')]: w.exitCode }),
    ...(w.signal === null ? {} : { [name('signal')]: w.signal }),
    ...(w.timedOut ? { [name('timed-out')]: true } : {}),
    ...(w.stdout ? { 'stdout-sha256': w.stdout.sha256 } : {}),
    ...(w.stderr ? { 'stderr-sha256': w.stderr.sha256 } : {}),
    verdict: v.verdict,
    'verdict-detail': v.detail,
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
