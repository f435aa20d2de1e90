/**
 * The registry: which module reads which handoff (by name, or by detection that weighs every
 * module's signals and says why it chose), and which emitter renders a record in which shape.
 * Adding a format is adding its folder and one line in MODULES (see CONTRIBUTING in README.md).
 */
import type { z } from 'zod';
import { LedgerError } from '../model/errors.js';
import {
  FORMATS,
  LIFECYCLE_FORMAT,
  type FormatName,
  type LedgerRecord,
  type Status,
} from '../model/record.js';
import type { Detection, Emitted, Emitter, FormatModule } from './contract.js';
import type { EmitterName } from './shapes.js';
import { CLAIM_FIELDS } from './kit/claims.js';
import { otherUnicodeEncoding, resaveAsUtf8 } from './kit/encoding.js';
import { isPlainObject } from './kit/json.js';
import { createSniff } from './kit/sniff.js';
import { kxm } from './kxm/index.js';
import { ledger } from './ledger/index.js';
import { mainark } from './mainark/index.js';
import { maxsim } from './maxsim/index.js';
import { structured } from './structured/index.js';
import { team } from './team/index.js';

/** The modules with their own types: what the `show --json` type fold reads. */
const DECLARED = [ledger, maxsim, mainark, kxm, team, structured] as const;
const MODULES: readonly FormatModule[] = DECLARED;

/** Below this score a module does not claim an input. */
const MIN_SCORE = 0.2;
/**
 * Below this score a module's claim is a guess: it is not recorded without --format (issue 20:
 * another harness's claude-progress.json was recorded as a team feature list at 0.3).
 */
const CONFIDENT = 0.5;
/** Two modules closer than this, both confident, is an ambiguity to resolve with --format. */
const AMBIGUOUS_WITHIN = 0.1;

export function formatModules(): readonly FormatModule[] {
  return MODULES;
}

export function isFormatName(name: string): name is FormatName {
  return (FORMATS as readonly string[]).includes(name);
}

export function formatModule(name: FormatName): FormatModule {
  const module = MODULES.find((m) => m.name === name);
  if (!module) throw new LedgerError('USAGE', `the ${name} format is not available in this build`);
  return module;
}

/**
 * The module whose rules a stored record follows: its format's, or for a lifecycle step (a
 * record kind of its own, not a handoff format) the module that defines the lifecycle, whose
 * status words and re-derivation the steps use. Never a way to parse or detect a step.
 */
export function recordModule(record: Pick<LedgerRecord, 'format'>): FormatModule {
  if (record.format !== LIFECYCLE_FORMAT) return formatModule(record.format);
  const module = MODULES.find((m) => m.lifecycle !== undefined);
  if (!module)
    throw new LedgerError('USAGE', 'no format in this build defines a handoff lifecycle');
  return module;
}

export { EMITTER_NAMES, type EmitterName } from './shapes.js';

/** Every shape `show --as` can render, module by module, the module's own shape first. */
export function emitterNames(): string[] {
  return MODULES.flatMap((m) => m.emitters.map((e) => e.name));
}

export function isEmitterName(name: string): name is EmitterName {
  return emitterNames().includes(name);
}

/** The emitter of a shape and the module that owns it (which reads that shape back). */
export function findEmitter(name: string): { module: FormatModule; emitter: Emitter } {
  for (const module of MODULES)
    for (const emitter of module.emitters) if (emitter.name === name) return { module, emitter };
  throw new LedgerError('USAGE', `unknown shape ${name}`, {
    hint: `Shapes: ${emitterNames().join(', ')}`,
  });
}

/** What the record's claimed status means, by the rules of the format it came in. */
export function claimedMeaning(record: LedgerRecord): Status | undefined {
  return recordModule(record).statusOf(record.claims.status);
}

/** Renders a record in a shape, with the loss report. */
export function emitAs(name: string, record: LedgerRecord): Emitted {
  return findEmitter(name).emitter.emit(record, { claimedMeaning: claimedMeaning(record) });
}

/** The shape a record's kept source bytes are in: `show --as` that shape gives them back. */
export function sourceShapeOf(record: LedgerRecord): string {
  const module = recordModule(record);
  return module.sourceShape?.(record) ?? module.emitters[0]?.name ?? module.name;
}

export interface Detected extends Detection {
  module: FormatModule;
  /** Every module's score and signals, best first (what the choice was made from). */
  ranking: { format: FormatName; score: number; signals: string[] }[];
}

/**
 * The module that reads these bytes, chosen on every module's score. No module confident
 * enough, or two equally confident, is an input error that says what each one saw.
 */
export function detectFormat(bytes: Uint8Array, fileName?: string): Detected {
  const tried = tryDetectFormat(bytes, fileName);
  if ('refused' in tried) throw tried.refused;
  return tried.detected;
}

/**
 * `detectFormat` without the throw: the detection, or the error it would throw with the
 * module that claims these bytes most (`claimant`, when one scores MIN_SCORE or more), from the
 * same ranking. A hook tells a handoff written too weakly to be read (refused, as `record`
 * refuses it) from no handoff at all (a conversational turn) without ranking every module twice.
 */
export function tryDetectFormat(
  bytes: Uint8Array,
  fileName?: string,
): { detected: Detected } | { refused: LedgerError; claimant: FormatModule | undefined } {
  const input = fileName ?? 'the input';
  // Before any module looks: UTF-16 read as UTF-8 is "no format", and --format cannot help.
  const encoding = otherUnicodeEncoding(bytes);
  if (encoding !== undefined) {
    const refused = new LedgerError('INVALID_INPUT', `${input} is not UTF-8 text`, {
      hint: `${resaveAsUtf8(encoding).replace(/^it/, 'It')}.`,
    });
    return { refused, claimant: undefined };
  }
  const sniff = createSniff(bytes, fileName);
  const ranking = rank(sniff);
  const [best, second] = ranking;
  const claimant = best !== undefined && best.score >= MIN_SCORE ? best.module : undefined;
  const said = ranking
    .filter((r) => r.score > 0)
    .map((r) => `${r.format} ${r.score.toFixed(2)} (${r.signals.join('; ') || 'no signal'})`)
    .join(', ');
  if (!best || best.score < MIN_SCORE) {
    const seems = MODULES.map((m) => {
      try {
        const what = m.seemsToBe?.(sniff);
        return what === undefined
          ? undefined
          : `It looks like ${what}: the ${m.name} format knows it, and does not read it as it is. `;
      } catch {
        return undefined;
      }
    }).find((x) => x !== undefined);
    const refused = new LedgerError(
      'INVALID_INPUT',
      `could not tell which handoff format ${input} is in`,
      {
        hint: `${seems ?? ''}${said === '' ? 'No format recognised anything in it. ' : `Scores: ${said}. `}Name it with --format (one of ${FORMATS.join(', ')}).`,
      },
    );
    return { refused, claimant };
  }
  if (best.score < CONFIDENT) {
    const refused = new LedgerError(
      'INVALID_INPUT',
      `${input} was taken for ${best.module.title} (${best.format}) only at confidence ${best.score.toFixed(2)}, on ${best.signals.join('; ') || 'no signal'}: too weak to record without --format`,
      {
        hint: `If it is ${best.format}'s, name it with --format ${best.format}; if it is another tool's file, no format here reads it. Scores: ${said}.`,
      },
    );
    return { refused, claimant };
  }
  if (second && second.score >= 0.5 && best.score - second.score < AMBIGUOUS_WITHIN) {
    const refused = new LedgerError(
      'INVALID_INPUT',
      `${input} looks as much like ${second.format} as like ${best.format}`,
      { hint: `Scores: ${said}. Name the format with --format.` },
    );
    return { refused, claimant };
  }
  return {
    detected: {
      module: best.module,
      score: best.score,
      signals: best.signals,
      ranking: ranking.map(({ format, score, signals }) => ({ format, score, signals })),
    },
  };
}

/** Every module's score for the input, best first; a module that throws scores 0. */
function rank(sniff: ReturnType<typeof createSniff>) {
  return MODULES.map((module) => {
    let detection: Detection;
    try {
      detection = module.detect(sniff);
    } catch {
      detection = { score: 0, signals: [] };
    }
    return { module, format: module.name, score: detection.score, signals: detection.signals };
  }).sort((a, b) => b.score - a.score);
}

/**
 * Keys that make a JSON object with a `status` a handoff rather than any JSON with a status (an
 * API response `{"status": 404, "error": …}`): the ledger shape's claims, and the keys of the
 * seed formats' JSON handoffs.
 */
const HANDOFF_KEYS: readonly string[] = [
  ...CLAIM_FIELDS.filter((field) => field !== 'status' && field !== 'extra'),
  'verification',
  'recommended_next_stage',
  'workspaceId',
];

/**
 * A handoff that no format recognises but that is plainly meant as one — a JSON object with a
 * `status` key and at least one other handoff key (`{"status": "done", "summary": …}`) — is a
 * malformed ledger-shape handoff, not "no handoff": the ledger module, whose shape it has, then
 * says what is wrong (`status: unknown status, expected success | …, got done`). Undefined for
 * anything else, and when detection decides (or finds two formats equally likely) by itself.
 * This rule needs a `status` key: a hook's cheap pre-filter that passes on every input with
 * one never drops such a handoff.
 */
export function malformedHandoffFormat(
  bytes: Uint8Array,
  fileName?: string,
): FormatModule | undefined {
  const sniff = createSniff(bytes, fileName);
  const value = sniff.json();
  if (!isPlainObject(value) || !Object.hasOwn(value, 'status')) return undefined;
  if (!HANDOFF_KEYS.some((k) => Object.hasOwn(value, k))) return undefined;
  for (const module of MODULES) {
    let score = 0;
    try {
      score = module.detect(sniff).score;
    } catch {
      score = 0;
    }
    if (score >= MIN_SCORE) return undefined;
  }
  return formatModule('ledger');
}

type ViewSchemasOf<M> = M extends { views: { schemas: infer S } } ? S : never;
type Merged<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;
/** Every module's `show --json` keys and their schemas, typed as each module declares them. */
export type FormatViewSchemas = Merged<ViewSchemasOf<(typeof DECLARED)[number]>>;

/**
 * The keys formats add to `show --json`, folded over the modules: `show`'s published schema
 * and the answer's TypeScript type are made from this, so the CLI names no format's fields.
 * Two modules declaring one key would make a key mean two things: a bug, refused here.
 */
export function formatViewSchemas(): FormatViewSchemas {
  return fold(
    MODULES.map((m) => m.views?.schemas ?? {}),
    'show --json key',
  ) as FormatViewSchemas;
}

/** The keys formats add to `stats --json` (each module's `stats.key`), with their schemas. */
export function formatStatsSchemas(): Readonly<Record<string, z.ZodType>> {
  return fold(
    MODULES.map((m) => (m.stats ? { [m.stats.key]: m.stats.schema } : {})),
    'stats --json key',
  );
}

function fold(
  parts: readonly Readonly<Record<string, z.ZodType>>[],
  what: string,
): Record<string, z.ZodType> {
  const all: Record<string, z.ZodType> = {};
  for (const part of parts)
    for (const [key, schema] of Object.entries(part)) {
      if (Object.hasOwn(all, key))
        throw new LedgerError('INTERNAL', `two formats declare the ${what} ${key}`, {
          hint: 'Give one of them another name; a key means one thing in every record.',
        });
      all[key] = schema;
    }
  return all;
}
