/**
 * Paths as handoffs write them, mapped onto repository paths: absolute paths under the
 * repository's work tree, or under any other worktree of the same repository (`git worktree
 * list`: an agent that worked in a linked worktree writes its paths), become repository-relative
 * with the original kept in `as`. Anything else is never guessed at: a path outside every work
 * tree is kept as written and is `unverifiable` at verify, and a line that is prose, not a path,
 * is kept as prose.
 */
import { posix } from 'node:path';
import { code, unwrap } from './markdown.js';

export type MappedPath =
  | { kind: 'repo'; path: string; as?: string }
  /** Absolute outside every work tree, or climbing out with `..`: kept as written. */
  | { kind: 'outside'; raw: string }
  | { kind: 'invalid'; raw: string };

const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]/;

function normalizeRoot(root: string): string {
  return posix.normalize(root.replace(/\\/g, '/')).replace(/\/+$/, '');
}

/**
 * Maps a written path against the work tree roots (the repository's first). Pure: the roots
 * are given, never looked up here.
 */
export function mapPath(raw: string, roots: readonly string[]): MappedPath {
  const written = unwrap(raw);
  if (written === '' || written.includes('\0') || written.length > 4096)
    return { kind: 'invalid', raw };
  const windows = WINDOWS_ABSOLUTE.test(written);
  const slashed =
    windows || roots.some((r) => /^[A-Za-z]:/.test(r)) ? written.replace(/\\/g, '/') : written;
  if (windows || slashed.startsWith('/')) {
    const abs = posix.normalize(slashed);
    // The longest root that holds the path: a linked worktree nested inside the main work tree
    // (`<repo>/.claude/worktrees/agent-2`, where agent tools put them) holds its own files, which
    // the main root, a prefix of it, would map to `.claude/worktrees/agent-2/…`: a false alarm.
    let best: { root: string; rel: string } | undefined;
    for (const root of roots.map(normalizeRoot)) {
      if (root === '' || (best !== undefined && best.root.length >= root.length)) continue;
      const inside = windows
        ? abs.toLowerCase().startsWith(`${root.toLowerCase()}/`)
        : abs.startsWith(`${root}/`);
      if (!inside) continue;
      const rel = abs.slice(root.length + 1).replace(/\/+$/, '');
      if (rel !== '') best = { root, rel };
    }
    if (best !== undefined) return { kind: 'repo', path: best.rel, as: written };
    return { kind: 'outside', raw: written };
  }
  const rel = posix.normalize(slashed);
  if (rel === '..' || rel.startsWith('../')) return { kind: 'outside', raw: written };
  if (rel === '.' || rel === '') return { kind: 'invalid', raw };
  const clean = rel.replace(/\/+$/, '');
  return clean === slashed
    ? { kind: 'repo', path: clean }
    : { kind: 'repo', path: clean, as: written };
}

export type PathText =
  | { kind: 'path'; path: string; note?: string; ticked: boolean }
  | { kind: 'prose'; text: string; why: string };

const GLOB = /[*?[\]{}]/;

/** Where a note starts after a path: ` - `, ` — `, ` – ` or ` (`. */
const NOTE_SEPARATOR = /\s+(?:[-—–]\s|\()/;

/** A first word that is a file name by itself: an extension, a dot file or a known name. */
function fileLike(word: string): boolean {
  return /\.[A-Za-z0-9_+-]{1,12}$/.test(word) || /^\.[^./]/.test(word) || EXTENSIONLESS.test(word);
}

/**
 * Splits a line that should name a file into the path and a trailing note
 * (`` `src/a.ts` — the parser ``, `README.md (new section)`), or says why it is prose
 * (`14 maxsim-*.md agent files`, `3 new helper files`): a claim about prose is unverifiable,
 * never a claim about a file named `14`.
 *
 * A path in backticks or double quotes is the delimited text. A bare path with spaces
 * (`docs/user guide/install notes.md`, MaxsimCLI's `Created: /abs/dir with space/x.md`) was cut
 * at the first space and the stump contradicted (red team, round twelve). The rule reads the
 * document alone, never the trees, so that the claims `record` stores are the reading of the
 * bytes it keeps: the words before the first note separator (` - `, ` — `, ` (`) are one path
 * when the first word is a stump (a slash, no extension, not ending in `/`) and the last word
 * names a file (an extension). A first word that is a file name keeps today's reading (the rest
 * is a note: `src/a.ts added the parser`); a stump followed by words that name no file
 * (`src/lib helper functions`) is ambiguous, and said so: unverifiable, never a guess.
 */
export function splitPathAndNote(text: string): PathText {
  const read = splitPath(text.trim());
  // `~~` is GitHub's strikethrough: a name holding it is a withdrawn file's, never a path to
  // claim (red team, round fifteen: `~~src/old.ts~~` was claimed, tildes and all). A name holding
  // `<` or `>` is markup GitHub keeps (`<del>src/old.ts</del>`, round sixteen), never a path.
  if (read.kind !== 'path') return read;
  if (read.path.includes('~~')) return { kind: 'prose', text: text.trim(), why: STRUCK_WHY };
  return /[<>]/.test(read.path)
    ? { kind: 'prose', text: text.trim(), why: 'markup (`<` or `>`), not a path' }
    : read;
}

function splitPath(t: string): PathText {
  const delimited =
    /^(`+)([^`]+?)\1(?:\s+(.*))?$/s.exec(t) ?? /^(")([^"`]+?)"(?:\s+(.*))?$/s.exec(t);
  if (delimited) {
    const path = (delimited[2] ?? '').trim();
    if (GLOB.test(path)) return { kind: 'prose', text: t, why: 'a pattern, not a path' };
    const note = (delimited[3] ?? '').trim();
    return { kind: 'path', path, ticked: true, ...(note === '' ? {} : { note }) };
  }
  const token = t.split(/\s+/)[0] ?? '';
  // `src/a.ts,` or `README.md.` at the end of a sentence: the punctuation is not the name's.
  const first = token.length > 1 ? token.replace(/[,;:.]+$/, '') : token;
  const note = t.slice(token.length).trim();
  if (first === '') return { kind: 'prose', text: t, why: 'no path' };
  if (GLOB.test(first)) return { kind: 'prose', text: t, why: 'a pattern, not a path' };
  // One token is a file name even without a dot (`Makefile`); with more words, the first must
  // look like a path (a slash or an extension), else the line is a description.
  const slashed = /[/\\]/.test(first);
  if (note === '') {
    return /^[\d.,]+$/.test(first)
      ? { kind: 'prose', text: t, why: 'a number, not a path' }
      : { kind: 'path', path: first, ticked: false };
  }
  if (!slashed && !fileLike(first))
    return { kind: 'prose', text: t, why: 'a description, not a path' };
  const separator = NOTE_SEPARATOR.exec(t);
  const head = (separator === null ? t : t.slice(0, separator.index)).trim();
  // The first word ends the path when it is a file name, ends in a slash or punctuation
  // (`src/lib:`), or when nothing but a note follows it.
  if (head === token || token !== first || fileLike(first) || /[/\\]$/.test(first))
    return { kind: 'path', path: first, note, ticked: false };
  const words = head.split(/\s+/);
  const last = (words[words.length - 1] ?? '').replace(/[,;:.]+$/, '');
  if (hasExtension(last) && !GLOB.test(head)) {
    const path = head.replace(/[,;:.]+$/, '');
    const rest = t.slice(head.length).trim();
    return { kind: 'path', path, ticked: false, ...(rest === '' ? {} : { note: rest }) };
  }
  return {
    kind: 'prose',
    text: t,
    why: `ambiguous: \`${first}\` is followed by words that name no file (a path with spaces? write it in backticks)`,
  };
}

const WITHDRAWN = 'a file withdrawn, not claimed';
const STRUCK_WHY = `struck out (\`~~\`): ${WITHDRAWN}`;

/**
 * An item that opens with a struck-out span (`` ~~`src/old.ts`~~ - dropped ``, `~~src/old.ts~~
 * (dropped)`, GitHub's strikethrough, one tilde or two): the planned file an honest agent
 * withdrew, shown struck through. Before round fifteen it was claimed under the literal name and
 * failed verify on honest work. `standing`: what follows the strike when it opens with a path of
 * its own (`` ~~`a.ts`~~ `b.ts` ``, renamed in review), the item to read instead; else the whole
 * item is withdrawn. Undefined when the item opens with no strikethrough.
 */
export function struckOut(text: string): { why: string; standing?: string } | undefined {
  const tilde = /^(~~?)(?=[^\s~])(.*?[^\s~])\1(?!~)(.*)$/s.exec(text.trim());
  // GitHub keeps `<del>`, `<s>` and `<strike>` and shows them struck through, as `~~` (round
  // sixteen: `<del>`src/old.ts`</del>` was claimed, tags and all).
  const tag = /^<(del|s|strike)>(.*?)<\/\1>(.*)$/is.exec(text.trim());
  const m = tilde ?? tag;
  if (m === null) return undefined;
  const why =
    tilde !== null ? STRUCK_WHY : `struck out (\`<${(m[1] ?? '').toLowerCase()}>\`): ${WITHDRAWN}`;
  const rest = (m[3] ?? '').trim();
  const name = /^`([^`\s]+)`/.exec(rest)?.[1] ?? /^[^\s`~(—–:-]\S*/.exec(rest)?.[0] ?? '';
  const opensWithPath =
    /[/\\]/.test(name) || hasExtension(name) || /^\.[^./]/.test(name) || EXTENSIONLESS.test(name);
  return opensWithPath ? { why, standing: rest } : { why };
}

/**
 * An item, heading or line that is a path and at most a note (`` `src/b.ts` - why ``, `**src/b.ts**
 * (new)`, `src/b.ts: why`): the path and the rest, or undefined when it opens with no path or
 * goes on in words (`` `src/b.ts` calls the API `` is a sentence about the file). A bare path must
 * have a folder and an extension (`I/O`, `Node.js` are words); one in backticks or bold a folder
 * or a file name's shape. `bareNames`: a bare name of that shape too (`user.ts`, `models/`), as a
 * list nested under a directory item writes the files in it. `item`: the text is a list item's.
 */
export function pathEntry(
  text: string,
  { bareNames = false, item = false } = {},
): { path: string; rest: string; ticked: boolean } | undefined {
  // A list item that opens with a `path` with a folder names that file, whatever words follow
  // (`` - `src/b.ts` the parser ``): a bullet is an entry, where a line of prose is not.
  const opening = item
    ? /^(?:\*\*)?`([^`\s]*[/\\][^`\s]*)`(?:\*\*)?(\s.*)$/s.exec(text.trim())
    : null;
  if (opening !== null && !/[*?[\]{}<>]|~~|:\/\//.test(opening[1] ?? ''))
    return { path: opening[1] ?? '', rest: opening[2] ?? '', ticked: true };
  const m =
    /^(?:\*\*`([^`\s]+)`\*\*|`([^`\s]+)`|\*\*([^*`\s]+)\*\*|([^\s`*~]+?))([,;.]?)((?:\s*(?:--|—|–|-(?=\s)|:|\()[^]*)?)$/.exec(
      text.trim(),
    );
  if (m === null) return undefined;
  const bare = m[4];
  const path = m[1] ?? m[2] ?? m[3] ?? bare ?? '';
  if (/[*?[\]{}<>]|~~|:\/\//.test(path)) return undefined;
  const named = /[/\\]/.test(path) || hasExtension(path) || /^\.[^./]/.test(path);
  const file = bareNames ? named && !/\.$/.test(path) : /[/\\]/.test(path) && hasExtension(path);
  if (bare !== undefined ? !file : !named) return undefined;
  return { path, rest: m[6] ?? '', ticked: m[1] !== undefined || m[2] !== undefined };
}

/**
 * The path a deeper item names under a directory item (`` - `src/services/` `` over `` - `user.ts`
 * ``, a tree written as a list): the directory joined with the name, unless the name already
 * starts there or is absolute (`src/services/user.ts`, `/abs/x.ts`) or opens with the same first
 * folder (`src/other/x.ts` under `src/services/`: a path from the root, written in full).
 */
export function underDirectory(directory: string, name: string): string {
  const dir = directory.replace(/[/\\]+$/, '');
  const n = name.replace(/^\.\//, '');
  const first = (p: string): string => p.split(/[/\\]/)[0] ?? '';
  if (/^(?:[/\\]|[A-Za-z]:[/\\])/.test(n) || n === dir || n.startsWith(`${dir}/`)) return n;
  if (/[/\\]./.test(n) && first(n) === first(dir)) return n;
  return `${dir}/${n}`;
}

/**
 * The two paths of a rename written as git prints one (`src/old.ts -> src/new.ts`, or with
 * `→`), or undefined when the item is not one: both sides must read as one path each. Before
 * this, the old path was the claim and `-> src/new.ts` its note: the new path never checked.
 */
export function renamedPaths(text: string): { from: string; to: string } | undefined {
  const parts = text.trim().split(/\s+(?:->|→|=>)\s+/);
  if (parts.length !== 2) return undefined;
  const [from, to] = parts.map((part) => splitPathAndNote(part ?? ''));
  if (from?.kind !== 'path' || to?.kind !== 'path' || from.note !== undefined) return undefined;
  // `package.json -> bumped the version` is a note, not a rename.
  const pathLike = (p: string): boolean => /[/\\]/.test(p) || fileLike(p);
  if (!pathLike(from.path) || !pathLike(to.path)) return undefined;
  return { from: from.path, to: to.path };
}

/** Whether a name ends in a file extension; one has a letter: `v1.2` is a version, not a file. */
export function hasExtension(name: string): boolean {
  const extension = /\.([A-Za-z0-9_+-]{1,12})$/.exec(name)?.[1];
  return extension !== undefined && /[A-Za-z]/.test(extension);
}

/** File names without an extension that a list of paths names as files. */
const EXTENSIONLESS =
  /^(?:Makefile|GNUmakefile|Dockerfile|Containerfile|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|Justfile|LICENSE|README|CHANGELOG|NOTICE|AUTHORS|CODEOWNERS)$/;

/**
 * The paths of an item that names several, separated by commas (`src/a.ts, src/b.ts`, as
 * GSD-2's task summaries write `## Key Files Created`), or undefined when the item is not such
 * a list: every piece must be one path-like token (a slash, an extension, a dot file or a known
 * extension-less name; backticks allowed), so a note with commas (`src/z.ts (reads a, b)`) or a
 * list of words (`React, Vue`) is not split. Before this, the first path was claimed and the
 * rest became its note, unchecked: claims dropped without a word.
 */
export function pathList(text: string): string[] | undefined {
  const pieces = text.split(',').map((piece) => piece.trim());
  if (pieces.length < 2) return undefined;
  const paths: string[] = [];
  for (const piece of pieces) {
    const bare = /^`([^`]+)`$/.exec(piece)?.[1]?.trim() ?? piece;
    if (bare === '' || /[\s`<>]/.test(bare) || bare.includes('~~') || GLOB.test(bare))
      return undefined;
    const pathLike =
      /[/\\]/.test(bare) || hasExtension(bare) || /^\.[^./]/.test(bare) || EXTENSIONLESS.test(bare);
    if (!pathLike) return undefined;
    paths.push(bare);
  }
  return paths;
}

/**
 * A path (and an optional note) written so that splitPathAndNote reads back exactly the same:
 * bare when that is unambiguous, in backticks otherwise.
 */
export function writePath(path: string, note?: string): string {
  const bare = note === undefined ? path : `${path} ${note}`;
  const back = splitPathAndNote(bare);
  if (back.kind === 'path' && back.path === path && back.note === note) return bare;
  const ticked = `${code(path)}${note === undefined ? '' : ` ${note}`}`;
  return ticked;
}
