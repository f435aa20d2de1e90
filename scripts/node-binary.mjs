// Another Node line's official binary, for the bench's second run (bench/common.mjs `ltsNode`)
// and the tests that run again on newer Node (scripts/test-newer-node.mjs): the npm registry's
// `node-<platform>-<arch>@<major>` package, unpacked into bench/.node/node-<major> once; later
// runs reuse it without the network.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the binaries are unpacked (git-ignored). */
export const NODE_DIR = join(
  resolve(dirname(fileURLToPath(import.meta.url)), '..'),
  'bench',
  '.node',
);

export function nodeVersion(node) {
  const r = spawnSync(node, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * `{ node, version }` of Node `major`, installed on first use, or `{ reason }` when it cannot be
 * had (no network, an unknown platform, a package that does not run here).
 */
export function nodeBinary(major, log) {
  const dir = join(NODE_DIR, `node-${major}`);
  const node = join(dir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  const installed = existsSync(node) ? nodeVersion(node) : undefined;
  if (installed) return { node, version: installed };

  const pkg = `node-${process.platform}-${process.arch}@${major}`;
  log(`node: installing ${pkg} from the npm registry into bench/.node/ (first use only)`);
  const work = join(NODE_DIR, `.partial-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    // `npm pack` only downloads the tarball: no install scripts run, nothing joins the project.
    const pack = spawnSync(
      'npm',
      ['pack', pkg, '--json', '--loglevel=silent', '--pack-destination', work],
      { encoding: 'utf8', timeout: 300_000, cwd: work },
    );
    if (pack.status !== 0) {
      let why = pack.error?.message ?? `exit ${pack.status}`;
      try {
        // npm --json says what failed as { error: { summary } } on stdout.
        why = JSON.parse(pack.stdout).error?.summary ?? why;
      } catch {
        // not JSON: keep the exit status
      }
      return { reason: `${pkg} could not be fetched from the npm registry (${why})` };
    }
    const filename = JSON.parse(pack.stdout)[0]?.filename;
    const untar = spawnSync('tar', ['-xzf', join(work, filename), '-C', work], {
      encoding: 'utf8',
    });
    if (untar.status !== 0)
      return { reason: `unpacking ${filename} failed: ${untar.stderr.trim()}` };
    const unpacked = join(work, 'package');
    const version = nodeVersion(join(unpacked, 'bin', 'node'));
    if (!version) return { reason: `${pkg} was fetched but its bin/node does not run here` };
    rmSync(dir, { recursive: true, force: true });
    // One rename: a run killed mid-download never leaves a half-unpacked Node to be reused.
    renameSync(unpacked, dir);
    return { node, version };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
