/**
 * `quotedBy` lives with the other rules for agent text in printed words (src/paths/
 * quoted-claim.ts), where the report's renderers and verify's checks can reach it too; the
 * lifecycle modules keep importing it from here.
 */
export { quotedBy } from '../paths/quoted-claim.js';
