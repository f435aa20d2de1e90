/**
 * `ledger report --html` in a real browser: Debian's Chromium, headless, driven by
 * playwright-core pointed at the system binary. The page must render with no console errors
 * and no network request, hostile agent text must stay text, the filters must work, and a
 * record's verdicts must be the ones `ledger verify --json` gives.
 *
 * Chromium is the one real counterpart this test needs; .ci/run installs it. Without it the
 * test fails (it never skips).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeForTerminal } from '../../src/paths/index.js';
import { cli, makeUser, record } from '../adversarial/helpers.js';
import { gitdir, tempDir, writeFiles } from '../helpers/git.js';

const CHROMIUM = '/usr/bin/chromium';

/** Each would set `window.__pwned` (or load something) if the page let it out of its text. */
const HOSTILE_TASK = '<script>window.__pwned = "task"</script>';
const HOSTILE_SUMMARY = [
  '</textarea><img src=x onerror="window.__pwned = \'img\'">',
  '" onmouseover="window.__pwned = \'attr\'" x="',
  "'><svg onload=window.__pwned='svg'>",
  '</style><script>window.__pwned = "style"</script><!--',
  'bidi \u202e reversed \u202c and <a href="https://example.com/x">a link</a>',
].join('\n');
const HOSTILE_FILE = 'x"><img src=y onerror=window.__pwned=1>.txt';

let context: BrowserContext;
let page: Page;
const requests: string[] = [];
const consoleMessages: string[] = [];

beforeAll(async () => {
  expect(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: apt-get install chromium (.ci/run installs it)`,
  ).toBe(true);
  const profile = join(tempDir('ledger-chromium-'), 'profile');
  mkdirSync(profile);
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context.on('request', (request) => requests.push(request.url()));
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning')
      consoleMessages.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => consoleMessages.push(`pageerror: ${e.message}`));
});

afterAll(async () => {
  await context?.close();
});

describe('ledger report --html in Chromium', () => {
  it('renders with no errors and no network requests, keeps hostile text as text, filters, and shows the verdicts of verify --json', async () => {
    const user = makeUser();
    const dir = gitdir({ files: { 'README.md': '# base\n', 'src/app.ts': 'one\ntwo\n' } });
    writeFiles(dir, { 'src/app.ts': 'one\ntwo\nthree\n' });
    const key = join(tempDir('ledger-key-'), 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'agent', '-f', key]);
    const fingerprint = execFileSync('ssh-keygen', ['-l', '-f', `${key}.pub`], {
      encoding: 'utf8',
    }).split(' ')[1]!;
    const good = await record(user, dir, {
      status: 'success',
      summary: 'add three',
      task: 'T-good',
      artifacts: ['src/app.ts'],
      sign: true,
      signingKey: key,
    });
    writeFiles(dir, { [HOSTILE_FILE]: 'boom\n' });
    const hostile = await record(user, dir, {
      status: 'success',
      summary: HOSTILE_SUMMARY,
      task: HOSTILE_TASK,
      artifacts: [HOSTILE_FILE],
      witnesses: ['false'],
    });
    const handoff = JSON.stringify({
      status: 'partial',
      summary: 'references',
      task: 'T-good',
      references: [
        { path: 'src/app.ts', line: 2 },
        { path: 'src/app.ts', line: 99 },
      ],
    });
    const referencing = await record(user, dir, {
      from: { bytes: new TextEncoder().encode(handoff), fileName: 'handoff.json' },
    });

    const file = join(tempDir(), 'audit.html');
    const [written, verified] = await Promise.all([
      cli(user, dir, ['report', '--html', file]),
      cli(user, dir, ['verify']),
    ]);
    expect(written.code, written.stderr).toBe(1);
    expect(written.json.written.html).toBe(file);
    expect(verified.code).toBe(1);

    const url = pathToFileURL(file).href;
    await page.goto(url);
    await expect.poll(() => page.locator('#shown').textContent()).toBe('3 of 3 record(s) shown');

    // Self-contained: the document itself is the only request; nothing was blocked or failed.
    expect(requests).toEqual([url]);
    expect(consoleMessages).toEqual([]);

    // Hostile text stayed text: nothing ran, no element was injected, the text reads as written.
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    for (const tag of ['img', 'svg', 'a', 'iframe', 'textarea'])
      expect(await page.locator(tag).count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('style').count()).toBe(1);
    const hostileRecord = page.locator(`article[data-record="${hostile.id}"]`);
    expect(await hostileRecord.locator('.f-task bdi').first().textContent()).toBe(HOSTILE_TASK);
    expect(await hostileRecord.locator('.summary').textContent()).toBe(
      escapeForTerminal(HOSTILE_SUMMARY),
    );
    expect(await hostileRecord.locator('table.artifacts td').first().textContent()).toBe(
      HOSTILE_FILE,
    );
    expect(HOSTILE_SUMMARY).toContain('\u202e');
    expect(await hostileRecord.locator('.summary').textContent()).toContain('\\u202e');

    // Contradicted first; newest first among equals.
    const order = await page
      .locator('article.record')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-record')));
    expect(order.slice(0, 2).sort()).toEqual([hostile.id, referencing.id].sort());
    expect(order[0]).toBe(referencing.id);
    expect(order[2]).toBe(good.id);

    // Each record's rows are verify --json's checks: check, subject, verdict, detail, in order.
    for (const r of verified.json.records) {
      const rows = await page
        .locator(`article[data-record="${r.id}"] tr.check`)
        .evaluateAll((trs: any[]) =>
          trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td: any) => td.textContent ?? '')),
        );
      expect(
        rows.map(([check, subject, verdict, detail]) => ({
          check,
          subject,
          verdict: verdict!.trim(),
          detail,
        })),
      ).toEqual(
        r.checks.map((c: any) => ({
          check: c.check,
          subject: escapeForTerminal(c.subject),
          verdict: c.verdict,
          detail: escapeForTerminal(c.detail),
        })),
      );
    }
    // The signature of the signed record: its key, not trusted (no policy names a signer).
    const signature = page.locator(
      `article[data-record="${good.id}"] table.signatures tbody tr td`,
    );
    expect((await signature.allTextContents()).slice(0, 3)).toEqual(['—', 'no', fingerprint]);
    expect(
      await page.locator(`article[data-record="${hostile.id}"] table.signatures`).count(),
    ).toBe(0);

    const ledgerRows = await page.locator('tr.ledger-check td.c-verdict').allTextContents();
    expect(ledgerRows.map((t) => t.trim())).toEqual(
      verified.json.ledger.map((c: any) => c.verdict),
    );

    // Filter by verdict: only records with a contradicted check, and in them only those checks.
    await page.selectOption('#filter-verdict', 'contradicted');
    await expect.poll(() => page.locator('#shown').textContent()).toBe('2 of 3 record(s) shown');
    expect(await page.locator(`article[data-record="${good.id}"]`).isHidden()).toBe(true);
    const visibleVerdicts = await page
      .locator('article.record:not([hidden]) tr.check:not([hidden]) td.c-verdict')
      .allTextContents();
    expect(visibleVerdicts.length).toBeGreaterThan(0);
    expect(new Set(visibleVerdicts.map((t) => t.trim()))).toEqual(new Set(['contradicted']));
    expect(
      await page.locator('article.record:not([hidden]) tr.check[hidden]').count(),
    ).toBeGreaterThan(0);

    // Then by task too (the hostile one, chosen by its label as a person would).
    await page.selectOption('#filter-task', { label: HOSTILE_TASK });
    await expect.poll(() => page.locator('#shown').textContent()).toBe('1 of 3 record(s) shown');
    expect(await hostileRecord.isVisible()).toBe(true);

    // The other task, any verdict: its two records, every check row back.
    await page.selectOption('#filter-verdict', '');
    await page.selectOption('#filter-task', { label: 'T-good' });
    await expect.poll(() => page.locator('#shown').textContent()).toBe('2 of 3 record(s) shown');
    expect(await hostileRecord.isHidden()).toBe(true);
    expect(await page.locator('article.record:not([hidden]) tr.check[hidden]').count()).toBe(0);

    expect(requests).toEqual([url]);
    expect(consoleMessages).toEqual([]);
  });
});
