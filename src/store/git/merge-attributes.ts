/**
 * The attributes `head.tree`'s merge (merge-tree.ts) applies: those the base branch committed,
 * in the tree of a commit main pointed to (for each replayed update, the one the branch had
 * taken in last: src/verify/head-merged.ts), and nothing else. A developer's `git merge main` reads
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
 * file win. Lines are read as git reads them (attribute-lines.ts: a BOM skipped, a quoted
 * pattern unquoted) and the rewritten pattern is quoted when it needs it, so a directory with
 * a space, a quote or a control character in it is said too. Negative patterns and `[attr]`
 * macros git itself ignores in a nested file.
 *
 * Leaving a line out is not safe: a nested `*.txt -merge` under the root's `*.txt merge=union`
 * left out lets the union make a conflict "clean" (red team, round seventeen). A line that
 * cannot be said from the root (its rewrite reaches git's 2048-byte line limit) therefore
 * makes its directory `-merge` instead: every content merge below it that two sides changed
 * conflicts, which is never cleaner than what any attribute would give. Nearer files, written
 * later, still say their own, as they would over the line in git.
 *
 * Only `merge` (and `conflict-marker-size`) change what git's merge-tree does here: `text`,
 * `eol`, `filter` and `ident` would need `merge.renormalize`, and the scratch git reads no
 * config. A `merge=<driver>` names a program only through a `merge.<driver>.driver` setting,
 * and the scratch git reads no config file at all (merge-tree.ts), so the built-in merge runs.
 */
import { attributeLines, formatLine, MAX_LINE_BYTES, parseNestedLine } from './attribute-lines.js';
import type { GitResult } from './exec.js';

export interface AttributesFile {
  /** Its path in the tree, bytes as git stores them: `.gitattributes`, `docs/.gitattributes`. */
  path: Buffer;
  text: Buffer;
}

const NAME = '.gitattributes';

/** git ignores a larger attributes file as a whole (attr.c `ATTR_MAX_FILE_SIZE`). */
const MAX_FILE_BYTES = 100 * 1024 * 1024;

/** What makes a directory's content merges conflict when a line of its file cannot be said. */
const NO_MERGE = ['-merge'];

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
  for (const entry of listed.stdout.toString('latin1').split('\0')) {
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
  return found.map((f, i) => ({
    path: Buffer.from(f.path, 'latin1'),
    text: texts[i]!,
  }));
}

/** `cat-file --batch` output: `<oid> blob <size>\n<bytes>\n` per object. */
function splitBatch(out: Buffer): Buffer[] | undefined {
  const texts: Buffer[] = [];
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) return undefined;
    const size = /^[0-9a-f]+ blob (\d+)$/.exec(out.subarray(at, eol).toString('latin1'))?.[1];
    if (size === undefined) return undefined;
    const start = eol + 1;
    const end = start + Number(size);
    if (end > out.length) return undefined;
    texts.push(out.subarray(start, end));
    at = end + 1;
  }
  return texts;
}

/** The files as one root-level attributes file, saying for each path what git would. */
export function toRootAttributes(files: readonly AttributesFile[]): Buffer {
  const named = files.map((f) => ({
    path: f.path.toString('latin1'),
    text: f.text,
  }));
  const depth = (path: string) => path.split('/').length;
  const ordered = named.sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1));
  const lines: string[] = [];
  for (const file of ordered) {
    const dir = file.path.slice(0, -NAME.length);
    // A file git ignores as too large is marked too: whether git reads it or not, no
    // content merge below it can come out cleaner than git's.
    const said =
      file.text.length >= MAX_FILE_BYTES
        ? { lines: [], whole: false }
        : fileFromRoot(dir, file.text);
    lines.push(...said.lines);
    if (!said.whole) lines.push(noMergeBelow(dir));
  }
  const text = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  // One info/attributes file too large for git would lose every line: no content merge at all.
  if (text.length >= MAX_FILE_BYTES) return Buffer.from(`${noMergeBelow('')}\n`, 'latin1');
  return Buffer.from(text, 'latin1');
}

/** `dir`'s (`docs/`) file said from the root; not whole when some line cannot be. */
function fileFromRoot(dir: string, text: Buffer): { lines: string[]; whole: boolean } {
  const lines = attributeLines(text.toString('latin1'));
  // The root's own lines as they are: info/attributes is read as the root's file is.
  if (dir === '') return { lines: lines.filter((line) => line !== ''), whole: true };
  const said: string[] = [];
  let whole = true;
  for (const line of lines) {
    const parsed = parseNestedLine(line);
    if (parsed === undefined || parsed.attributes.length === 0) continue;
    const scoped = fromRoot(dir, parsed.pattern);
    if (scoped === undefined) continue;
    const written = formatLine(scoped, parsed.attributes);
    if (written.length < MAX_LINE_BYTES) said.push(written);
    else whole = false;
  }
  return { lines: said, whole };
}

/** A pattern of `dir`'s file made relative to the root; none if it matches no file. */
function fromRoot(dir: string, pattern: string): string | undefined {
  const body = pattern.replace(/\/$/, '');
  if (body === '') return undefined;
  const literal = literalDir(dir);
  return body.includes('/') ? `${literal}${pattern.replace(/^\//, '')}` : `${literal}**/${pattern}`;
}

/** The directory's name matched literally: a `*`, `[` or `#` in it is escaped. */
function literalDir(dir: string): string {
  return dir.replace(/[*?[\]\\#!]/g, (c) => `\\${c}`);
}

/**
 * The line that makes every file below `dir` merge as binary, from the nearest directory up
 * (the root at last: `*`) whose line git reads, so it covers `dir`.
 */
function noMergeBelow(dir: string): string {
  for (let at = dir; at !== ''; at = at.replace(/[^/]*\/$/, '')) {
    const line = formatLine(`${literalDir(at)}**`, NO_MERGE);
    if (line.length < MAX_LINE_BYTES) return line;
  }
  return formatLine('*', NO_MERGE);
}
