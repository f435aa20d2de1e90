/**
 * Looks at the file system made synchronously: one stat, directory listing, real path or
 * access check each, which returns at once whatever the file is (a FIFO blocks an open, not a
 * stat). Opening a repository makes some thirty of them, one after another, before its first
 * git runs; through the thread pool each waited for a round trip, about 10 ms a command in all
 * here, which a sync paid before its fetch could start (issue 19). Opens and reads stay
 * asynchronous, and go through the checks that keep a planted FIFO from blocking them.
 */
import { accessSync, constants, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';

/** `lstat`, or undefined when there is nothing to look at (or it cannot be looked at). */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** `stat` (links followed), or the error it failed with. */
export function statOrError(path: string): Stats | NodeJS.ErrnoException {
  try {
    return statSync(path);
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

/**
 * The real path, as the kernel resolves it, or undefined. `.native` (realpath(3)): node's JS
 * realpathSync folds `l/..` away as text, in the path and in a link's target, where the kernel
 * and git follow `l` first and then go up from where it led. `W/l/../copy` was ENOENT here while
 * git opened the copy beside l's target (red team, round eighteen).
 */
export function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** Whether this process may search (or run) `path`. */
export function mayExecute(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The names in a directory; none when it cannot be listed. */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The entries of a directory, with their types; none when it cannot be listed. */
export function entriesIn(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
