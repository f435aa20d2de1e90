// The audit page at scale (issue 17): `ledger report --html` of a 1,000-record ledger (bench/
// scale.mjs's generator: three claimed files and a witness with kept output per record) must
// stay under 2 MB and open in Chromium in under 2 s. The load time is the page's own navigation
// timing (`loadEventEnd`) in headless /usr/bin/chromium through playwright-core, the median of
// the runs; the ratio is against the 2 s and 2 MB targets.
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { median, removeScratch, ROOT } from './common.mjs';
import { makeLargeLedger } from './scale.mjs';

const CHROMIUM = '/usr/bin/chromium';

export async function benchReport({ runs, log = () => {} }) {
  if (!existsSync(CHROMIUM)) return { rows: [], notes: [`${CHROMIUM} is missing: no page rows`] };
  const { chromium } = await import('playwright-core');
  const { writeReport } = await import(pathToFileURL(join(ROOT, 'dist/src/app/report.js')).href);
  const dir = await makeLargeLedger(1000);
  const out = mkdtempSync(join(tmpdir(), 'ledger-bench-page-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const file = join(out, 'audit.html');
    const started = performance.now();
    await writeReport({ cwd: dir, htmlFile: file });
    const writeSeconds = (performance.now() - started) / 1000;
    const bytes = statSync(file).size;
    const loads = [];
    for (let run = 0; run < runs; run++) {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(file).href);
      // In the page, not here: the page's own navigation timing.
      loads.push(
        (await page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")) / 1000,
      );
      await page.close();
    }
    const load = median(loads);
    log(
      `  page: ${bytes} bytes, written in ${writeSeconds.toFixed(1)} s, loaded in ${(load * 1000).toFixed(0)} ms (median of ${runs})`,
    );
    return {
      rows: [
        {
          name: 'audit page, 1,000 records: Chromium load',
          seconds: load,
          peer: 'the 2 s target',
          peerSeconds: 2,
          ratio: load / 2,
          target: 1,
        },
        {
          name: 'audit page, 1,000 records: size',
          seconds: bytes / 1e6,
          unit: 'MB',
          peer: 'the 2 MB target',
          peerSeconds: 2,
          ratio: bytes / 1e6 / 2,
          target: 1,
        },
      ],
      details: { bytes, writeSeconds, loads },
    };
  } finally {
    await browser.close();
    removeScratch(dir);
    removeScratch(out);
  }
}
