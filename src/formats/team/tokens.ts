/**
 * A written place (`file:line`) as a claim: a table cell's location (`located`), and the places
 * a line of prose names (`placesIn`: a list item, a paragraph, a table cell, an insight marker).
 * Prose is read strictly, since a false alarm on honest prose is as bad as a missed lie: only a
 * token that is clearly a repository file at a line counts.
 */
import { parseFileLine } from '../kit/markdown.js';
import { hasExtension, mapPath } from '../kit/paths.js';

/**
 * Extensions a root-level file of a repository is known by (`package.json:12`, `README.md:3`):
 * source, config and document files. A host (`db.internal:5432`, `example.com:443`,
 * `api.example.io:8080`) ends in none of them, so a root-level token without one is prose.
 */
const ROOT_FILE_EXTENSIONS = new Set(
  (
    'json jsonc json5 ts tsx mts cts js jsx mjs cjs md mdx markdown rst txt adoc yaml yml toml ' +
    'ini cfg conf properties env xml lock py pyi go mod rs java kt kts scala groovy gradle rb ' +
    'php c h cc cpp cxx hpp hh cs fs swift m dart lua r sql sh bash zsh ps1 bat cmd html ' +
    'htm css scss sass less vue svelte astro graphql proto tf hcl nix ex exs erl hs ml clj ' +
    'zig jl sol cmake dockerfile'
  ).split(' '),
);

/**
 * The extensions above that are country domains too (Moldova, Paraguay, Serbia, Saint Helena,
 * Cocos Islands, Mali, French Southern Territories): `x.md:443` or `example.sh:8080` may be a
 * host at a port. Whether the file exists cannot settle it at verify — an honest host name would
 * be contradicted, a false alarm — so it is settled here: a root-level name with one of these
 * extensions is a file when it is a name repositories keep at their root (ROOT_FILE_NAMES); with
 * two or more dots before its port (`api.example.md:443`) it is a host, prose like
 * `db.internal:5432`; anything else (`utils.py:40`, `x.md:443`) is neither claimed nor dropped:
 * it is said, unverifiable, with its line.
 */
const COUNTRY_DOMAINS = new Set(['md', 'py', 'rs', 'sh', 'cc', 'ml', 'tf']);

/** Root-level file names with a country-domain extension that repositories keep (lower case). */
const ROOT_FILE_NAMES = new Set(
  (
    'readme.md changelog.md contributing.md license.md security.md code_of_conduct.md ' +
    'claude.md agents.md gemini.md history.md notes.md todo.md roadmap.md architecture.md ' +
    'setup.py manage.py conftest.py noxfile.py tasks.py fabfile.py __init__.py __main__.py ' +
    'main.py app.py wsgi.py asgi.py build.rs main.rs lib.rs install.sh setup.sh build.sh ' +
    'bootstrap.sh configure.sh deploy.sh entrypoint.sh run.sh test.sh gradlew.sh main.tf ' +
    'variables.tf outputs.tf providers.tf versions.tf backend.tf locals.tf data.tf'
  ).split(' '),
);

/** How a root-level token (no directory) reads: a file, a host (prose), or not to be guessed. */
function rootName(name: string): 'file' | 'host' | 'unsure' {
  const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  if (!ROOT_FILE_EXTENSIONS.has(extension)) return 'host';
  if (!COUNTRY_DOMAINS.has(extension) || ROOT_FILE_NAMES.has(name.toLowerCase())) return 'file';
  return name.split('.').length > 2 ? 'host' : 'unsure';
}

/**
 * `a.ts:12:5` (line and column) → `a.ts:12`, and a range with columns `a.ts:12:5-14:2` →
 * `a.ts:12-14`, `a.ts:12:5-9` (columns of one line) → `a.ts:12`: the lines are the claim; the
 * columns are not checked. A GitHub anchor is the same claim in a link's spelling (red team,
 * round twelve: `a.ts#L3` was claimed as a file of that name, contradicted, and failed the 30%
 * rule): `a.ts#L3` → `a.ts:3`, `a.ts#L2-L4` → `a.ts:2-4`, `a.ts#L2C5-L4C8` → `a.ts:2-4`.
 * Upstream's verify_references.py reads neither spelling (it extracts `path.ext:line` alone),
 * so it counts no anchor unresolved; read as its line, an honest anchor resolves, and one past
 * the end is contradicted for its line like any `:line` ledger reads beyond upstream's pattern
 * (ranges, `line:col`).
 */
function withoutColumn(text: string): string {
  return text
    .replace(
      /^(\s*`*[^\s`#]*[^\s`#/])#L(\d{1,9})(?:C\d{1,9})?(?:[-–]L?(\d{1,9})(?:C\d{1,9})?)?(`*\s*)$/,
      (_, head: string, line: string, end: string | undefined, tail: string) =>
        `${head}:${line}${end === undefined ? '' : `-${end}`}${tail}`,
    )
    .replace(
      /^(\s*`*[^\s`]*:L?\d{1,9}):C?\d{1,9}(?:[-–](?:L?(\d{1,9}):C?\d{1,9}|C?\d{1,9}))?(`*\s*)$/,
      (_, head: string, end: string | undefined, tail: string) =>
        `${head}${end === undefined ? '' : `-${end}`}${tail}`,
    );
}

/** A written `file:line` location as a claim: mapped into the repository, else as written. */
export function located(
  text: string,
  roots: readonly string[],
): { path: string; line?: number; endLine?: number } | null {
  const fl = parseFileLine(withoutColumn(text));
  if (!fl) return null;
  const mapped = mapPath(fl.path, roots);
  if (mapped.kind === 'invalid') return null;
  const path = mapped.kind === 'repo' ? mapped.path : mapped.raw;
  return {
    path: path.slice(0, 4096),
    ...(fl.line === undefined ? {} : { line: fl.line }),
    ...(fl.endLine === undefined ? {} : { endLine: fl.endLine }),
  };
}

/** Whether a table cell's text parses as a location (a `line:col` one too). */
export function isLocation(text: string): boolean {
  return parseFileLine(withoutColumn(text)) !== null;
}

export type Place = { path: string; line: number; endLine?: number };

/**
 * Every `path:line` token of a line of prose: code marks, brackets and closing punctuation
 * aside. A token counts when it has a directory and a file extension (`src/a.ts:12`), or is a
 * root-level file with a known extension (`package.json:12`: ROOT_FILE_EXTENSIONS; one that is a
 * country domain too only by a known root name, `README.md:12`: rootName), at `:digits` (a
 * `line-line` range keeps its end; a `line:col` its line). URLs, `host:port`, `user@host:port`,
 * `node:fs`, times and versions are prose; an absolute path outside every work tree (a system
 * header) is not the repository's; a relative path that climbs out with `..` is kept as written,
 * and verify says it cannot check it. `unsure` holds the root-level tokens that may be a file or
 * a host (`utils.py:40`, `x.md:443`), as written: the caller says them, unverifiable.
 */
export function readPlaces(
  text: string,
  roots: readonly string[],
): { places: Place[]; unsure: string[] } {
  const places: Place[] = [];
  const unsure: string[] = [];
  for (const raw of text.split(/[\s`()[\]<>{}"',;、，（）「」→←]+/)) {
    const written = raw.replace(/[.:!?。]+$/, '');
    const token = withoutColumn(written);
    const fl = parseFileLine(token);
    if (fl?.line === undefined) continue;
    const name = fl.path.slice(fl.path.lastIndexOf('/') + 1);
    if (!hasExtension(name)) continue;
    if (!fl.path.includes('/')) {
      const kind = name.includes('@') ? 'host' : rootName(name);
      if (kind === 'host') continue;
      if (kind === 'unsure') {
        // As written, so that its line can be found (`utils.py#L40` is not `utils.py:40`).
        unsure.push(written);
        continue;
      }
    }
    const mapped = mapPath(fl.path, roots);
    if (mapped.kind === 'invalid' || (mapped.kind === 'outside' && mapped.raw.startsWith('/')))
      continue;
    const at = located(token, roots);
    if (at?.line !== undefined)
      places.push({
        path: at.path,
        line: at.line,
        ...(at.endLine === undefined ? {} : { endLine: at.endLine }),
      });
  }
  return { places, unsure };
}

/** The places of `readPlaces`, for a caller with no word for the unsure ones (a table cell). */
export function placesIn(text: string, roots: readonly string[]): Place[] {
  return readPlaces(text, roots).places;
}
