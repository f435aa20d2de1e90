/**
 * KXM's lifecycle statuses, apart from the manifest schema (schema.ts re-exports them): the
 * lifecycle rules use them on `log`'s path, which must not load zod (src/formats/lifecycle.ts).
 */
export const KXM_LIFECYCLE = ['pending', 'accepted', 'rejected', 'superseded'] as const;
export type KxmLifecycleStatus = (typeof KXM_LIFECYCLE)[number];
