/**
 * Opening a repository: where it is, and whether the ledger can work in it at all.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import { runGit } from './exec.js';

export interface RepoPaths {
  /** The work tree's top level. */
  root: string;
  /** This work tree's git dir (`.git`, or `.git/worktrees/x` for a linked work tree). */
  gitDir: string;
  /** Where objects and refs live (the main `.git`). */
  commonDir: string;
  objectsDir: string;
}

export async function openRepo(cwd: string): Promise<RepoPaths> {
  // Both in parallel: one spawn's latency for the two questions every command asks first.
  const [result, extensions] = await Promise.all([
    runGit(['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'], { cwd }),
    runGit(['config', '--get-regexp', '^extensions\\.'], { cwd }),
  ]);
  if (result.code !== 0) {
    // An older git refuses a repository that needs an extension it does not know (reftable
    // refs on git < 2.45): say so, rather than "not a repository".
    const unknown = /unknown repository extensions? found:\s*([^\n]+(?:\n\t[^\n]+)*)/i.exec(
      result.stderr,
    );
    if (unknown) {
      const names = unknown[1]!
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join(', ');
      throw new LedgerError(
        'UNSUPPORTED_REPOSITORY',
        `this repository needs git extension(s) ${names}${/refstorage/i.test(names) ? ' (a reftable ref store)' : ''}, which the installed git cannot read; ledger supports the files ref store and sha1 objects only`,
        { hint: 'Use ledger in a repository with the default ref store and object format.' },
      );
    }
    throw new LedgerError('NOT_A_REPOSITORY', `${cwd} is not inside a git work tree`, {
      hint: 'Run ledger inside a git repository (git init, or cd into one).',
    });
  }
  const [root, gitDir, common] = result.stdout.toString('utf8').trim().split('\n');
  if (!root || !gitDir || !common) {
    throw new LedgerError('NOT_A_REPOSITORY', `${cwd} has no work tree (a bare repository?)`, {
      hint: 'Run ledger in a clone with a work tree.',
    });
  }
  const commonDir = isAbsolute(common) ? common : resolve(root, common);
  checkSupported(extensions.stdout.toString('utf8'));
  return { root, gitDir, commonDir, objectsDir: join(commonDir, 'objects') };
}

/**
 * The ledger writes SHA-1 objects and loose refs through git's lock files. A sha256 object
 * format would get objects git rejects (isomorphic-git writes SHA-1 ones silently), and a
 * reftable ref store has no lock files to take: refuse both up front.
 */
function checkSupported(extensionLines: string): void {
  // git prints config keys lowercased: `extensions.objectformat sha256`.
  const config = new Map(
    extensionLines
      .split('\n')
      .map((line) => line.trim().split(/\s+/, 2))
      .filter((kv): kv is [string, string] => kv.length === 2)
      .map(([k, v]) => [k.toLowerCase(), v]),
  );
  const read = (key: string) => config.get(key.toLowerCase());
  const objectFormat = read('extensions.objectFormat')?.toLowerCase();
  if (objectFormat !== undefined && objectFormat !== 'sha1') {
    throw new LedgerError(
      'UNSUPPORTED_REPOSITORY',
      `this repository uses the ${objectFormat} object format; ledger supports sha1 repositories only`,
      { hint: 'Use ledger in a repository created with the default object format.' },
    );
  }
  const refStorage = read('extensions.refStorage')?.toLowerCase();
  if (refStorage !== undefined && refStorage !== 'files') {
    throw new LedgerError(
      'UNSUPPORTED_REPOSITORY',
      `this repository stores refs as ${refStorage}; ledger supports the files ref store only`,
      { hint: 'Use a repository with the default (files) ref storage.' },
    );
  }
}
