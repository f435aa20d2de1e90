/**
 * Where the user works (src/store/git/place.ts `findPlace`), given the git dir git opened.
 * git's discovery opens either a directory on the way up from the current one (a bare
 * repository, the inside of a git dir) or what a `.git` on that way leads to. A git dir that is
 * neither, as ledger reads the `.git` entries, means ledger read one of them otherwise than git
 * did: its place cannot be told, and it must never become a place of its own with a fresh
 * memory (red team, round eighteen: `gitdir: l/../copy`, read as text, did exactly that).
 */
import { cpSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLedgerError } from '../../src/model/errors.js';
import { findPlace } from '../../src/store/git/place.js';
import { cleanup, git, gitdir, tempDir } from '../helpers/git.js';

afterEach(cleanup);

describe('findPlace', () => {
  it('attack: a git dir git opened that no .git on the way up leads to, and that is neither the current directory nor above it — refused, not a place of its own', async () => {
    const checkout = gitdir();
    const copy = join(tempDir(), 'copy');
    cpSync(join(checkout, '.git'), copy, { recursive: true });
    mkdirSync(join(checkout, 'src', 'deep'), { recursive: true });
    for (const cwd of [checkout, join(checkout, 'src', 'deep')]) {
      const refused = await findPlace(cwd, copy, undefined).then(
        (place) => place,
        (error: unknown) => error,
      );
      expect(isLedgerError(refused) && refused.code, JSON.stringify(refused)).toBe(
        'UNSUPPORTED_REPOSITORY',
      );
      expect(String((refused as Error).message)).toContain(realpathSync(copy));
    }
  });

  it('honest: the checkout from a subdirectory; a bare repository and a submodule’s git dir from inside them; a GIT_DIR the user names', async () => {
    const checkout = gitdir();
    const top = realpathSync(checkout);
    mkdirSync(join(checkout, 'docs'));
    expect(await findPlace(join(checkout, 'docs'), join(checkout, '.git'), undefined)).toEqual({
      place: top,
      checkout: top,
    });

    const bare = join(tempDir(), 'bare.git');
    git(tempDir(), 'clone', '-q', '--bare', checkout, bare);
    const realBare = realpathSync(bare);
    expect(await findPlace(join(bare, 'refs'), bare, undefined)).toEqual({
      place: realBare,
      checkout: undefined,
    });

    const modules = join(checkout, '.git', 'modules', 'sub');
    cpSync(bare, modules, { recursive: true });
    const realModules = realpathSync(modules);
    expect(await findPlace(join(modules, 'objects'), modules, undefined)).toEqual({
      place: realModules,
      checkout: undefined,
    });

    expect(await findPlace(tempDir(), bare, bare)).toEqual({
      place: realBare,
      checkout: undefined,
    });
  });
});
