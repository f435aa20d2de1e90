/**
 * Where git says the repository is (`git rev-parse`), read so that no path passes for another.
 * rev-parse answers one question a line, and a path may hold a line break: a gitfile
 * `gitdir: cp<LF>x` (git opens `cp\nx`) once read as the git dir `W/cp` and the common dir `x`,
 * relative, so a forged ledger put at `./x` was verified (red team, round fifteen). So every
 * answer is a line whatever the repository looks like (`--show-prefix`, not `--show-cdup`,
 * which prints nothing or a path outside the work tree), the answer is taken only when it has
 * exactly as many lines as questions, and otherwise each path is asked for alone, where the
 * whole answer is the path: it is then refused (`checkLocationPaths`), naming the file that
 * named it.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import type { PlainLocation } from './discover.js';
import { runGit, type GitResult } from './exec.js';
import { NO_GUARD } from './guard.js';
import { lstatOrUndefined } from './look.js';
import { holdsLineBreak, lineBreakRefusal } from './path-files.js';

/** rev-parse's answers (`top` only where the in-process walk already knows it). */
export interface Location {
  bare: string | undefined;
  inside: string | undefined;
  gitDir: string;
  commonDir: string;
  top?: string;
  cdup: string | undefined;
}

/** The walk's answer in rev-parse's terms, with the top it already knows. */
export function plainAnswer(plain: PlainLocation): Location {
  const { gitDir, top, cdup } = plain;
  return { bare: 'false', inside: 'true', gitDir, commonDir: gitDir, top, cdup };
}

const WORDS = ['--is-bare-repository', '--is-inside-work-tree', '--show-prefix'];
const GIT_DIR = ['--absolute-git-dir'];
// Without --path-format=absolute, git prints the common dir relative to the current directory.
const COMMON_DIR = ['--path-format=absolute', '--git-common-dir'];

/** Every question at once: five answers of one line each, when no path holds a line break. */
export function locateWithGit(cwd: string): Promise<GitResult> {
  return runGit(['rev-parse', ...WORDS, ...GIT_DIR, ...COMMON_DIR], { cwd, guard: NO_GUARD });
}

/**
 * What locateWithGit's answer says; undefined when it is not five lines (a path held a line
 * break, or git said nothing): then ask `locateOneByOne`.
 */
export function readLocation(stdout: Buffer | undefined): Location | undefined {
  const lines = (stdout?.toString('utf8') ?? '').split('\n');
  if (lines.length !== 6 || lines[5] !== '') return undefined;
  const [bare, inside, prefix, gitDir, commonDir] = lines as [
    string,
    string,
    string,
    string,
    string,
  ];
  return { bare, inside, gitDir, commonDir, cdup: cdupOf(prefix) };
}

/** Each path asked for alone, so that its whole answer is the path, line breaks and all. */
export async function locateOneByOne(cwd: string): Promise<Location> {
  const ask = (questions: string[]) =>
    runGit(['rev-parse', ...questions], { cwd, guard: NO_GUARD }).then((r) =>
      r.code === 0 ? r.stdout.toString('utf8') : '',
    );
  const [words, gitDir, commonDir] = await Promise.all([ask(WORDS), ask(GIT_DIR), ask(COMMON_DIR)]);
  const [bare, inside, ...rest] = words.split('\n');
  const path = (answer: string) => (answer.endsWith('\n') ? answer.slice(0, -1) : answer);
  if (path(gitDir) === '' || path(commonDir) === '') {
    throw new LedgerError('NOT_A_REPOSITORY', `git did not say where the repository at ${cwd} is`, {
      hint: 'Run ledger inside a git repository.',
    });
  }
  const prefix = path(rest.join('\n'));
  return { bare, inside, gitDir: path(gitDir), commonDir: path(commonDir), cdup: cdupOf(prefix) };
}

/** `--show-cdup` from `--show-prefix`: one `../` a directory (a name never holds a `/`). */
function cdupOf(prefix: string): string {
  return '../'.repeat(prefix.split('/').length - 1);
}

/**
 * Throws CORRUPT when the git dir or the common dir git reports holds a line break or is not
 * absolute, naming the file that named it: the `.git` git read from `cwd` (or GIT_DIR), or the
 * git dir's `commondir`.
 */
export function checkLocationPaths(
  cwd: string,
  namedGitDir: string | undefined,
  location: { gitDir: string; commonDir: string },
): void {
  const { gitDir, commonDir } = location;
  const source = namedGitDir === undefined ? dotGitAbove(cwd) : `GIT_DIR (${namedGitDir})`;
  if (isBroken(gitDir)) throw lineBreakRefusal(source, 'the git dir', gitDir);
  if (!isBroken(commonDir)) return;
  const commondir = join(gitDir, 'commondir');
  const named = lstatOrUndefined(commondir) === undefined ? source : commondir;
  throw lineBreakRefusal(named, 'the common dir', commonDir);
}

/** Throws CORRUPT for a work tree path that holds a line break or is not absolute. */
export function checkWorkTreePath(cwd: string, workTree: string): void {
  if (isBroken(workTree)) throw lineBreakRefusal(dotGitAbove(cwd), 'the work tree', workTree);
}

function isBroken(path: string): boolean {
  return holdsLineBreak(path) || !isAbsolute(path);
}

/** The `.git` entry git's discovery meets first from `cwd`, as the file to name. */
function dotGitAbove(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    if (lstatOrUndefined(dotGit) !== undefined) return dotGit;
    if (dirname(dir) === dir) return `the repository git found from ${cwd}`;
  }
}
