/**
 * The attributes `head.tree`'s merge (merge-tree.ts) applies: those the base branch committed,
 * in the tree of the `--since` commit, and nothing else. A developer's `git merge main` reads
 * the checked-out `.gitattributes`, and a base branch that says `CHANGELOG.md merge=union` (so
 * that every pull request can append to the changelog) made an honest "Update branch" clean in
 * git and a conflict in a merge that read no attributes at all (red team, round sixteen). The
 * base branch's files are reviewed code; the branch's own, the recorded tree's and the
 * repository's `.git/info/attributes` are the agent's, and each once made a conflict a "clean
 * merge" (rounds thirteen and fourteen), so they are never read.
 *
 * git 2.39 has no `--attr-source`: the scratch git dir gets the files as its `info/attributes`,
 * one file at the root. A nested `.gitattributes` is rewritten to say the same from the root
 * (gitattributes(5): a pattern without a slash matches at any depth below its directory, one
 * with a slash is relative to it), deeper files after shallower ones, as git lets the nearer
 * file win. What cannot be said from the root is left out, which can only make a merge conflict
 * (fail), never clean: a quoted pattern, a directory name with whitespace, a quote or a control
 * character in it. Negative patterns and `[attr]` macros git itself ignores in a nested file.
 *
 * Only `merge` (and `conflict-marker-size`) change what git's merge-tree does here: `text`,
 * `eol`, `filter` and `ident` would need `merge.renormalize`, and the scratch git reads no
 * config. A `merge=<driver>` names a program only through a `merge.<driver>.driver` setting,
 * and the scratch git reads no config file at all (merge-tree.ts), so the built-in merge runs.
 */
import type { GitResult } from './exec.js';

export interface AttributesFile {
  /** Its path in the tree: `.gitattributes`, `docs/.gitattributes`. */
  path: string;
  text: string;
}

const NAME = '.gitattributes';

/**
 * The `.gitattributes` files in `commit`'s tree, as git reads them from a tree: regular files
 * only (git ignores a symlinked one), not inside submodules. Undefined when git cannot list the
 * tree or read a file.
 */
export async function readTreeAttributes(
  git: (args: readonly string[], input?: string) => Promise<GitResult>,
  commit: string,
): Promise<AttributesFile[] | undefined> {
  const listed = await git(['ls-tree', '-r', '-z', '--full-tree', commit]);
  if (listed.code !== 0) return undefined;
  const found: { path: string; oid: string }[] = [];
  for (const entry of listed.stdout.toString('utf8').split('\0')) {
    const match = /^(100644|100755) blob ([0-9a-f]{40,64})\t(.*)$/s.exec(entry);
    if (match === null) continue;
    const [, , oid, path] = match;
    if (path === NAME || path!.endsWith(`/${NAME}`)) found.push({ path: path!, oid: oid! });
  }
  if (found.length === 0) return [];
  const read = await git(['cat-file', '--batch'], found.map((f) => `${f.oid}\n`).join(''));
  if (read.code !== 0) return undefined;
  const texts = splitBatch(read.stdout);
  if (texts === undefined || texts.length !== found.length) return undefined;
  return found.map((f, i) => ({ path: f.path, text: texts[i]! }));
}

/** `cat-file --batch` output: `<oid> blob <size>\n<bytes>\n` per object. */
function splitBatch(out: Buffer): string[] | undefined {
  const texts: string[] = [];
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) return undefined;
    const size = /^[0-9a-f]+ blob (\d+)$/.exec(out.subarray(at, eol).toString('latin1'))?.[1];
    if (size === undefined) return undefined;
    const start = eol + 1;
    const end = start + Number(size);
    if (end > out.length) return undefined;
    texts.push(out.subarray(start, end).toString('utf8'));
    at = end + 1;
  }
  return texts;
}

/** The files as one root-level attributes file, saying for each path what git would. */
export function toRootAttributes(files: readonly AttributesFile[]): string {
  const depth = (path: string) => path.split('/').length;
  const ordered = [...files].sort(
    (a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1),
  );
  const lines: string[] = [];
  for (const file of ordered) {
    const dir = file.path.slice(0, -NAME.length);
    // git skips a UTF-8 BOM opening the file (attr.c); kept, it would be part of the first
    // rewritten pattern, which then matches nothing (red team, round seventeen).
    for (const line of file.text.replace(/^\uFEFF/, '').split('\n')) {
      const said = dir === '' ? line : fromRoot(dir, line);
      if (said !== undefined) lines.push(said);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** A line of `dir`'s (`docs/`) file, its pattern made relative to the root; none to leave out. */
function fromRoot(dir: string, line: string): string | undefined {
  const text = line.replace(/^[ \t\r]+/, '');
  if (text === '' || text.startsWith('#') || text.startsWith('[attr]')) return undefined;
  if (text.startsWith('"') || text.startsWith('!')) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\s"\x00-\x1f\x7f]/.test(dir)) return undefined;
  const end = text.search(/[ \t\r]/);
  const pattern = end < 0 ? text : text.slice(0, end);
  const rest = end < 0 ? '' : text.slice(end);
  const body = pattern.replace(/\/$/, '');
  if (body === '') return undefined;
  // The directory's name is matched literally: a `*`, `[` or `#` in it is escaped.
  const literal = dir.replace(/[*?[\]\\#!]/g, (c) => `\\${c}`);
  const scoped = body.includes('/')
    ? `${literal}${pattern.replace(/^\//, '')}`
    : `${literal}**/${pattern}`;
  return `${scoped}${rest}`;
}
