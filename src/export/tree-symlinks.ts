/**
 * What an in-toto link leaves out of its materials or products, and why: a symlink that leads
 * out of the tree, dangles or names a directory, and a submodule (red team, round ten). How a
 * symlink is followed over the tree is `src/ledger/tree-links.ts`, shared with verify's claims.
 */

/** A path the link cannot list with a digest of its content, and why; signed into the link. */
export interface NotListed {
  path: string;
  kind: 'symlink' | 'submodule';
  reason: string;
}
