/**
 * The work tree roots as an agent may have written them: through a symlinked directory. git
 * names each root by its physical path (`/private/tmp/x/repo`), while an agent's tools write
 * absolute paths from their logical working directory (`$PWD/src/a.ts`: on macOS every `/tmp`
 * and `$TMPDIR` path is one, on Linux a symlinked home or workspace), which mapped onto no root:
 * unverifiable, and `--strict` failed honest work (red team, round twelve).
 *
 * An alias is observed, never guessed: a directory the caller named (the request's `cwd`, the
 * shell's `$PWD`) that resolves to the same directory as the physical one `record` runs in
 * gives the root's logical name by dropping the same tail; another worktree's alias takes the
 * same prefix, and is kept only when it too resolves to that worktree. The aliases join the
 * roots `record` parses with, like the other worktrees: path mapping touches only claims,
 * never the status or the reasons, so `verify`, which re-parses without them, derives the same.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

async function real(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/** `path` with its last `tail` components dropped, or undefined when it does not end in them. */
function withoutTail(path: string, tail: string): string | undefined {
  if (tail === '') return path;
  return path.endsWith(`${sep}${tail}`) ? path.slice(0, -(tail.length + 1)) : undefined;
}

/**
 * Logical names of `roots` (the work tree first, then the other worktrees) that differ from
 * their physical ones, from the directories the caller named for `cwd`.
 */
export async function rootAliases(
  roots: readonly string[],
  cwd: string,
  named: readonly (string | undefined)[],
): Promise<string[]> {
  const here = await real(cwd);
  if (here === undefined) return [];
  const physical = await Promise.all(roots.map(async (root) => (await real(root)) ?? root));
  const aliases = new Set<string>();
  for (const given of new Set([cwd, ...named])) {
    if (given === undefined || !isAbsolute(given)) continue;
    const logical = resolve(given);
    if (logical === here || (await real(logical)) !== here) continue;
    // The root holding the working directory (the innermost, for a nested worktree).
    const holder = physical
      .filter((root) => !relative(root, here).startsWith('..') && !isAbsolute(relative(root, here)))
      .sort((a, b) => b.length - a.length)[0];
    if (holder === undefined) continue;
    const alias = withoutTail(logical, relative(holder, here));
    if (alias === undefined || alias === holder) continue;
    aliases.add(alias);
    // The part both names share at their end is the same directories: what precedes it is the
    // symlinked prefix, which the other worktrees under the physical prefix share too.
    const a = alias.split(sep);
    const p = holder.split(sep);
    while (a.length > 1 && p.length > 1 && a[a.length - 1] === p[p.length - 1]) {
      a.pop();
      p.pop();
    }
    const [logicalPrefix, physicalPrefix] = [a.join(sep), p.join(sep)];
    for (const root of physical) {
      if (root === holder || !root.startsWith(`${physicalPrefix}${sep}`)) continue;
      const other = `${logicalPrefix}${root.slice(physicalPrefix.length)}`;
      if ((await real(other)) === root) aliases.add(other);
    }
  }
  for (const root of roots) aliases.delete(root);
  return [...aliases];
}
