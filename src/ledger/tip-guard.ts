/**
 * Checks the tip an append attempt is about to build on, and throws to refuse it (the caller's
 * rule: app/held-guard.ts refuses a tip that lacks what this clone held). Called on every
 * attempt, since a lost race means building on another tip than the one checked before.
 */
export type TipGuard = (tipCommit: string | undefined) => Promise<void>;
