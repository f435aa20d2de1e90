/**
 * The format registry: which module reads which handoff, by name or by detection, and which
 * emitter renders a record in a seed system's shape.
 */
import { LedgerError } from '../model/errors.js';
import { FORMATS, type FormatName, type LedgerRecord } from '../model/record.js';
import { kxm, toKxmDoc } from './kxm.js';
import { ledger } from './ledger.js';
import { mainark } from './mainark.js';
import { maxsim } from './maxsim.js';
import { structured } from './structured.js';
import { team } from './team.js';
import type { Emitted, FormatModule } from './types.js';

export type { FormatModule, ParseContext, ParsedHandoff, ParseResult, Emitted } from './types.js';

const MODULES: readonly FormatModule[] = [ledger, maxsim, mainark, kxm, team, structured];

/** Shapes `show --as` can render: every format, plus KXM's Markdown view. */
export const EMITTERS = [...FORMATS, 'kxm-doc'] as const;
export type EmitterName = (typeof EMITTERS)[number];

export function formatModule(name: FormatName): FormatModule {
  const module = MODULES.find((m) => m.name === name);
  if (!module) throw new LedgerError('USAGE', `the ${name} format is not available in this build`);
  return module;
}

export function isFormatName(name: string): name is FormatName {
  return (FORMATS as readonly string[]).includes(name);
}

export function isEmitterName(name: string): name is EmitterName {
  return (EMITTERS as readonly string[]).includes(name);
}

export function emitAs(name: EmitterName, record: LedgerRecord): Emitted {
  return name === 'kxm-doc' ? toKxmDoc(record) : formatModule(name).emit(record);
}

/** The most confident module for these bytes; an input error when none recognises them. */
export function detectFormat(bytes: Uint8Array, fileName?: string): FormatModule {
  let best: { module: FormatModule; score: number } | undefined;
  for (const module of MODULES) {
    let score = 0;
    try {
      score = module.detect(bytes, fileName);
    } catch {
      score = 0;
    }
    if (score > 0 && (!best || score > best.score)) best = { module, score };
  }
  if (!best || best.score < 0.2) {
    throw new LedgerError(
      'INVALID_INPUT',
      `could not tell which handoff format ${fileName ?? 'the input'} is in`,
      {
        hint: `Name it with --format (one of ${FORMATS.join(', ')}).`,
      },
    );
  }
  return best.module;
}
