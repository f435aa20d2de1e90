/**
 * What `npm pack` ships is what a consumer runs: the tarball must hold the built `dist/` (built
 * by `prepack`, so installing it runs no script of ours), no sources or tests, and every
 * package that `dist/` imports must be a declared dependency. Then the unpacked package runs
 * as an installed one would: `ledger --version` and a real command and a record large enough for the pack workers, with its dependencies
 * resolved from a `node_modules` beside it (links to this checkout's — no network).
 *
 * `npm pack --ignore-scripts` packs the `dist/` the test run built (`npm test` builds first):
 * building again here would cost the suite a full `tsc`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACK_MIN_OBJECTS } from '../../src/store/git/snapshot.js';
import { git, gitdir, tempDir, writeFiles } from '../helpers/git.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

function pack(): { tarball: string; files: string[] } {
  const out = tempDir('ledger-pack-');
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' },
    }),
  ) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(out, packed.filename), files: packed.files.map((f) => f.path) };
}

/** Bare specifiers imported by the built JavaScript (`import … from 'x'`, `import('x')`). */
function importedPackages(dir: string): Set<string> {
  const found = new Set<string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js')) {
        const text = readFileSync(p, 'utf8');
        const specs = [
          ...text.matchAll(/^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm),
          ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
          ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
        ];
        for (const m of specs) {
          const spec = m[1]!;
          if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec))
            continue;
          const parts = spec.split('/');
          found.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
        }
      }
    }
  };
  walk(dir);
  return found;
}

describe('the npm tarball', () => {
  it('ships dist/ and no install script, declares what dist/ imports, and runs as an installed package', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    // Built when packed, never when installed: a consumer's npm runs nothing of ours.
    expect(manifest.scripts.prepack).toBe('npm run build');
    for (const script of INSTALL_SCRIPTS) expect(manifest.scripts[script]).toBeUndefined();

    const { tarball, files } = pack();
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/run.js',
        'dist/src/cli/main.js',
        'dist/src/cli/version.js',
        'dist/src/library.js',
        'dist/src/library.d.ts',
        'dist/src/store/git/pack-worker.js',
        'oclif.manifest.json',
        'package.json',
        'README.md',
      ]),
    );
    expect(files.filter((f) => /^(src|test|commands|bench|fixtures)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/commands/')).length).toBeGreaterThan(5);

    // An installed package: unpacked into a project's node_modules, its dependencies beside it.
    const project = tempDir('ledger-consumer-');
    const modules = join(project, 'node_modules');
    const installed = join(modules, manifest.name);
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    const packedManifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    for (const script of INSTALL_SCRIPTS) expect(packedManifest.scripts?.[script]).toBeUndefined();

    const undeclared = [...importedPackages(join(installed, 'dist'))].filter(
      (name) => !(name in manifest.dependencies),
    );
    expect(undeclared).toEqual([]);

    for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
      if (entry === manifest.name || entry.startsWith('.')) continue;
      symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry));
    }
    const bin = join(installed, 'bin', 'run.js');
    const version = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(version.startsWith(`${manifest.name}/${manifest.version} `), version).toBe(true);
    // A real command through oclif, from the packed manifest and commands.
    const repo = gitdir();
    const log = JSON.parse(
      execFileSync(process.execPath, [bin, 'log', '--json'], { cwd: repo, encoding: 'utf8' }),
    ) as unknown;
    expect(log).toBeDefined();
    // A large change goes through the pack workers, a module loaded by URL from the package.
    writeFiles(
      repo,
      Object.fromEntries(
        Array.from({ length: PACK_MIN_OBJECTS }, (_, n) => [`gen/f${n}.txt`, `file ${n}\n`]),
      ),
    );
    const recorded = JSON.parse(
      execFileSync(process.execPath, [bin, 'record', '--status', 'success', '--json'], {
        cwd: repo,
        encoding: 'utf8',
      }),
    ) as { candidateTree: string };
    const packs = readdirSync(join(repo, '.git', 'objects', 'pack'));
    expect(packs.filter((f) => f.endsWith('.pack'))).toHaveLength(1);
    expect(git(repo, 'cat-file', '-p', `${recorded.candidateTree}:gen/f7.txt`)).toBe('file 7');
  });
});
