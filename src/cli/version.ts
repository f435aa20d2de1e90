/**
 * The one version line, printed by `ledger --version`, `ledger -v` and `ledger version`. It is
 * read here rather than from oclif's config because bin/run.js answers `--version` before it
 * loads oclif at all (oclif alone costs more start-up time than the whole answer).
 */
import { readFileSync } from 'node:fs';

export interface VersionInfo {
  name: string;
  version: string;
  platform: string;
  arch: string;
  node: string;
}

/** The package this file belongs to: from dist/src/cli/, or from src/cli/ under vitest. */
function readPackage(): { name: string; version: string } {
  for (const up of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'handoff-ledger' && typeof pkg.version === 'string')
        return { name: pkg.name, version: pkg.version };
    } catch {
      // not this level: try the next
    }
  }
  return { name: 'handoff-ledger', version: 'unknown' };
}

export function versionInfo(): VersionInfo {
  const pkg = readPackage();
  return {
    name: pkg.name,
    version: pkg.version,
    platform: process.platform,
    arch: process.arch,
    node: process.version,
  };
}

/** `handoff-ledger/0.1.0 linux-x64 node-v20.20.2`, the shape oclif gives every CLI. */
export function versionLine(info: VersionInfo = versionInfo()): string {
  return `${info.name}/${info.version} ${info.platform}-${info.arch} node-${info.node}`;
}
