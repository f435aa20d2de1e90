/**
 * A claimed path the candidate tree does not have, next to a name there that reads the same:
 * `<BOM>lib.js` beside a claim about `lib.js`. The tree name is another file (git, the file
 * system and every checkout say so) and the claim is judged on the name it gives; but a reviewer
 * whose terminal shows `lib.js` in the tree needs to be told why "not in the candidate tree" is
 * right (red team, round eleven). Invisible characters (Unicode format characters and
 * default-ignorable code points) are what make two names read alike.
 */
import { readTree } from '../ledger/trees.js';
import { MODE } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';

const INVISIBLE = /\p{Cf}|\p{Default_Ignorable_Code_Point}/gu;

/** A name as a reader sees it: invisible characters dropped, composed (NFC). */
function asRead(name: string): string {
  return name.replace(INVISIBLE, '').normalize('NFC');
}

/**
 * The names in `path`'s folder of `tree` that read as its last segment but are other names, as
 * a clause for a verdict's detail ("" when there is none, or the folder is not in the tree).
 */
export async function lookAlikeNote(
  store: ObjectReader,
  tree: string,
  path: string,
): Promise<string> {
  const parts = path.split('/');
  const wanted = parts.pop()!;
  // A folder missing or unreadable is said by the checks that read it: here it is no note.
  const entries = (oid: string) => readTree(store, oid).catch(() => []);
  let folder = tree;
  for (const part of parts) {
    const entry = (await entries(folder)).find((e) => e.name === part);
    if (entry === undefined || entry.mode !== MODE.tree) return '';
    folder = entry.oid;
  }
  const seen = asRead(wanted);
  const alike = (await entries(folder))
    .map((e) => e.name)
    .filter((name) => name !== wanted && asRead(name) === seen);
  if (alike.length === 0) return '';
  // JSON.stringify quotes; the printer shows the invisible characters as escapes (\ufeff).
  const names = alike.map((n) => JSON.stringify(n)).join(', ');
  return `; the candidate tree has ${names} there: a name that reads the same but is another file (other bytes: invisible characters or another Unicode composition)`;
}
