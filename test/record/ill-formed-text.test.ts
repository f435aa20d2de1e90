/**
 * Text with no UTF-8 form — a lone surrogate, what a JSON `\udc9b` escape parses to (Python's
 * `json.dumps` writes one for a byte read with surrogateescape) — can never be stored: the
 * canonical encoding refuses it. It is the input's problem, refused before anything is written
 * (INVALID_INPUT, exit 2) naming the field, never an INTERNAL "bug in ledger": in every
 * JSON-based format's reader, in `record --from`, and in the library's (so MCP's) arguments.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatModules } from '../../src/formats/index.js';
import { isLedgerError, openLedger } from '../../src/library.js';
import { cleanup, gitdir, gitTry, PROJECT_ROOT, runCli } from '../helpers/git.js';
import { makeHome } from '../helpers/env.js';

afterAll(cleanup);

const LONE = '\udc9b';

function noLedger(dir: string): void {
  expect(gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/ledger/log').code).not.toBe(0);
}

/** The first string value (depth first) of a parsed JSON value, replaced by `with`; its path. */
function spoilFirstString(value: unknown, path = ''): { path: string } | undefined {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      if (typeof item === 'string') {
        value[i] = `${item}${LONE}`;
        return { path: `${path}[${i}]` };
      }
      const found = spoilFirstString(item, `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = path === '' ? key : `${path}.${key}`;
      if (typeof record[key] === 'string') {
        record[key] = `${record[key] as string}${LONE}`;
        return { path: child };
      }
      const found = spoilFirstString(record[key], child);
      if (found) return found;
    }
  }
  return undefined;
}

describe('attack: a string with no UTF-8 form is the input’s problem, named by its field', () => {
  it('every JSON-based format refuses a lone surrogate in its JSON, naming the path', () => {
    const checked: string[] = [];
    for (const module of formatModules()) {
      const dir = join(PROJECT_ROOT, 'fixtures', 'handoffs', module.name);
      let names: string[];
      try {
        names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.includes('.expected.'));
      } catch {
        continue;
      }
      const context = { repoRoot: '/repo', attachments: new Map(), now: new Date() };
      const sample = names.find((n) => {
        const bytes = readFileSync(join(dir, n));
        return module.parse(bytes, { ...context, fileName: n }).ok;
      });
      if (sample === undefined) continue;
      const value: unknown = JSON.parse(readFileSync(join(dir, sample), 'utf8'));
      const spoiled = spoilFirstString(value)!;
      // JSON.stringify writes a lone surrogate as its \u escape, as Python's json.dumps does.
      const bytes = new Uint8Array(Buffer.from(JSON.stringify(value), 'utf8'));
      const result = module.parse(bytes, { ...context, fileName: sample });
      expect(result.ok, `${module.name} ${sample}`).toBe(false);
      if (!result.ok)
        expect(result.problems, `${module.name} ${sample}`).toContainEqual(
          expect.objectContaining({ path: spoiled.path, message: expect.stringMatching(/UTF-8/) }),
        );
      checked.push(module.name);
    }
    expect(checked).toEqual(expect.arrayContaining(['kxm', 'mainark', 'structured', 'team']));
  });

  it('record --from h.json: INVALID_INPUT (exit 2) naming from:summary, nothing written', async () => {
    const user = makeHome();
    const dir = gitdir();
    writeFileSync(
      join(dir, 'h.json'),
      '{"status":"success","summary":"bad byte \\udc9b here","task":"T-1","decisions":[{"text":"ok","reason":"x\\ud800"}]}',
    );
    const run = await runCli(['record', '--from', 'h.json', '--json'], dir, user.env);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const { error } = JSON.parse(run.stdout) as {
      error: { code: string; problems: { path: string; message: string }[] };
    };
    expect(error.code).toBe('INVALID_INPUT');
    const paths = error.problems.map((p) => p.path);
    expect(paths).toContain('from:summary');
    expect(paths).toContain('from:decisions[0].reason');
    noLedger(dir);
  });

  it('the library’s (and so the MCP record tool’s) arguments: each field named, nothing written', async () => {
    const dir = gitdir();
    const refused = await openLedger(dir)
      .record({
        status: 'success',
        summary: `a${LONE}`,
        task: `T${LONE}`,
        producer: `bot${LONE}`,
        witnesses: [`true # ${LONE}`],
        evidence: { [`log${LONE}`]: 'README.md' },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isLedgerError(refused) && refused.code).toBe('INVALID_INPUT');
    const paths = isLedgerError(refused) ? refused.problems.map((p) => p.path) : [];
    expect(paths).toEqual(
      expect.arrayContaining(['summary', 'task', 'producer', 'witness[0]', 'evidence']),
    );
    // A handoff given as text whose JSON escapes one, as an MCP client passes it.
    const escaped = await openLedger(dir)
      .record({ handoff: '{"status":"success","summary":"x\\udc9b"}' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isLedgerError(escaped) && escaped.problems.map((p) => p.path)).toContain('from:summary');
    noLedger(dir);
  });

  it('a Markdown handoff’s YAML front matter ("\\udc9b" in a double-quoted string): named by the claim it became', async () => {
    const dir = gitdir();
    const summary = readFileSync(
      join(PROJECT_ROOT, 'fixtures', 'handoffs', 'maxsim', 'gsd-verification-evidence-list.md'),
      'utf8',
    ).replace('  - "Totals computed', '  - "Totals \\udc9b computed');
    const refused = await openLedger(dir)
      .record({ handoff: summary, fileName: 'SUMMARY.md' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isLedgerError(refused) && refused.code).toBe('INVALID_INPUT');
    expect(isLedgerError(refused) && refused.problems.map((p) => p.path)).toContain(
      'from:decisions[0].text',
    );
    noLedger(dir);
  });
});
