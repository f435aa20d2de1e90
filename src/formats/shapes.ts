/**
 * The shapes `show --as` renders, by name, without the registry: the `show` command names them in
 * its flag's help and refuses any other before it reads a record, and importing the registry for
 * that is importing every format's parser and zod (issue 21). The modules' emitters define the
 * shapes; test/formats/conformance.test.ts holds this list to the registry's emitterNames(), in
 * its order, so a new emitter that is not added here fails a test, not a user.
 */

/** The shapes, as a type too, for the typed library (`showAs(id, 'kxm-doc')` is checked). */
export const EMITTER_NAMES = [
  'ledger',
  'maxsim',
  'mainark',
  'mainark-review',
  'kxm',
  'kxm-doc',
  'team',
  'structured',
] as const;
export type EmitterName = (typeof EMITTER_NAMES)[number];

export function isShapeName(name: string): name is EmitterName {
  return (EMITTER_NAMES as readonly string[]).includes(name);
}
