import { readFileSync } from 'node:fs';

/** The running ledger's version, recorded in every record it writes. */
export const LEDGER_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as {
      version?: string;
    };
    if (pkg.version) return pkg.version;
  } catch {
    // running from src/ under vitest: one level less deep
  }
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
})();
