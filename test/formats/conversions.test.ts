/**
 * Conversions keep what they say they keep. Any record — every recorded fixture of every
 * format, records made from rich claims and from generated ones — rendered in any recordable
 * shape and recorded again keeps its effective status, its claims and its artifacts, or the
 * loss report names the field that changed; and it names no field that came through intact.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emitAs,
  emitterNames,
  findEmitter,
  formatModule,
  recordModule,
  type Emitted,
} from '../../src/formats/index.js';
import type { FormatName, LedgerRecord, Status } from '../../src/model/record.js';
import { PROJECT_ROOT } from '../helpers/git.js';
import { recordOf } from './helpers.js';

const ROOT = join(PROJECT_ROOT, 'fixtures', 'handoffs');
const REPO = '/home/dev/project';
const NOW = new Date('2026-03-07T10:00:00Z');
const SHAPES = emitterNames().filter((n) => findEmitter(n).emitter.view !== true);

/** Each claim field as compared: what a conversion must keep of it (prose details aside). */
const FIELDS = {
  summary: (c: LedgerRecord['claims']) => c.summary || undefined,
  task: (c: LedgerRecord['claims']) => c.task,
  run: (c: LedgerRecord['claims']) => c.run,
  attempt: (c: LedgerRecord['claims']) => c.attempt,
  intent: (c: LedgerRecord['claims']) => c.intent,
  reworkOf: (c: LedgerRecord['claims']) => c.reworkOf,
  nextStep: (c: LedgerRecord['claims']) => c.nextStep,
  decisions: (c: LedgerRecord['claims']) => list(c.decisions?.map((d) => [d.text, d.reason])),
  assumptions: (c: LedgerRecord['claims']) => list(c.assumptions),
  openQuestions: (c: LedgerRecord['claims']) => list(c.openQuestions),
  deferred: (c: LedgerRecord['claims']) =>
    list(c.deferred?.map((d) => [d.category, d.description, d.reason])),
  findings: (c: LedgerRecord['claims']) =>
    list(c.findings?.map((f) => [f.severity, f.summary, f.path, f.line])),
  references: (c: LedgerRecord['claims']) =>
    list(c.references?.map((r) => [r.path, r.line, r.endLine, r.unverified === true])),
  confidence: (c: LedgerRecord['claims']) =>
    c.confidence ? [c.confidence.value, c.confidence.justification] : undefined,
  artifacts: (c: LedgerRecord['claims']) =>
    list(c.artifacts?.map((a) => [a.path, a.action, a.sha256])),
  checks: (c: LedgerRecord['claims']) =>
    list(c.checks?.map((k) => [k.command, k.result, k.exitCode])),
  insights: (c: LedgerRecord['claims']) => list(c.insights?.map((i) => [i.category, i.content])),
  anchors: (c: LedgerRecord['claims']) => {
    const a = c.anchors;
    return a && (a.baseCommit || a.candidateTree || a.branch)
      ? [a.baseCommit, a.candidateTree, a.branch]
      : undefined;
  },
} as const;

function list<T>(items: T[] | undefined): T[] | undefined {
  return items === undefined || items.length === 0 ? undefined : items;
}

/** `claims.findings[2].severity (…)` → `claims.findings`; `observed.effectiveStatus (…)` → itself. */
function named(losses: readonly string[]): Set<string> {
  return new Set(losses.map((l) => /^(claims|observed)\.[A-Za-z]+/.exec(l)?.[0] ?? l));
}

/** What a shape wrote of the ledger-authored half as claims, taken out again before comparing. */
function withoutObserved(
  record: LedgerRecord,
  again: LedgerRecord['claims'],
  losses: readonly string[],
): LedgerRecord['claims'] {
  const wrote = (part: string): boolean =>
    losses.some(
      (l) =>
        l.startsWith(`observed.${part} (written as`) ||
        l.startsWith(`observed.${part} (the first written`),
    );
  const out = { ...again };
  const claimedCommands = new Set((record.claims.checks ?? []).map((k) => k.command));
  if (wrote('witnesses'))
    out.checks = again.checks?.filter(
      (k) =>
        !(
          k.command !== undefined &&
          !claimedCommands.has(k.command) &&
          record.observed.witnesses.some((w) => w.command === k.command)
        ),
    );
  if (wrote('artifacts')) {
    const claimed = new Set((record.claims.artifacts ?? []).map((a) => a.path));
    out.artifacts = again.artifacts?.filter(
      (a) => claimed.has(a.path) || !record.observed.artifacts.some((o) => o.path === a.path),
    );
  }
  if (wrote('base') || wrote('candidate') || wrote('branch')) {
    const a = { ...again.anchors };
    if (wrote('base') && record.claims.anchors?.baseCommit === undefined) delete a.baseCommit;
    if (wrote('candidate') && record.claims.anchors?.candidateTree === undefined)
      delete a.candidateTree;
    if (wrote('branch') && record.claims.anchors?.branch === undefined) delete a.branch;
    out.anchors = a;
  }
  return out;
}

/** Converts, records again, and says what broke: a change not named, or a name not changed. */
function convert(record: LedgerRecord, shape: string): string[] {
  const { module } = findEmitter(shape);
  const out: Emitted = emitAs(shape, record);
  const where = `${record.format} → ${shape}`;
  const back = module.parse(out.bytes, {
    repoRoot: REPO,
    fileName: out.fileName ?? 'handoff',
    now: NOW,
  });
  if (!back.ok)
    return [`${where}: the rendering is not recorded again: ${JSON.stringify(back.problems)}`];
  const again = withoutObserved(record, back.handoff.claims, out.losses);
  const reported = named(out.losses);
  const changed = new Set<string>();
  if (back.handoff.status !== record.observed.effectiveStatus)
    changed.add('observed.effectiveStatus');
  const meant = recordModule(record).statusOf(record.claims.status);
  if (module.statusOf(back.handoff.claims.status) !== meant) changed.add('claims.status');
  for (const [field, view] of Object.entries(FIELDS))
    if (JSON.stringify(view(record.claims)) !== JSON.stringify(view(again)))
      changed.add(`claims.${field}`);
  const broke: string[] = [];
  for (const field of changed)
    if (!reported.has(field))
      broke.push(`${where}: ${field} changed, not named in ${JSON.stringify(out.losses)}`);
  for (const field of reported)
    if ((field in FIELDS_NAMED || field === 'observed.effectiveStatus') && !changed.has(field))
      broke.push(`${where}: ${field} is named but came through intact`);
  return broke;
}
const FIELDS_NAMED = Object.fromEntries(
  [...Object.keys(FIELDS), 'status'].map((f) => [`claims.${f}`, true]),
);

function fixtureRecords(): LedgerRecord[] {
  const out: LedgerRecord[] = [];
  for (const format of readdirSync(ROOT).sort())
    for (const file of readdirSync(join(ROOT, format)).sort()) {
      if (file.endsWith('.expected.json')) continue;
      const r = formatModule(format as FormatName).parse(readFileSync(join(ROOT, format, file)), {
        repoRoot: REPO,
        fileName: file,
        now: NOW,
      });
      if (r.ok)
        out.push(
          recordOf(r.handoff, format as FormatName, { input: { root: REPO, fileName: file } }),
        );
    }
  return out;
}

const WITNESS = (command: string, exitCode: number) => ({
  command,
  exitCode,
  signal: null,
  timedOut: false,
  durationMs: 5,
});
const RICH: LedgerRecord['claims'] = {
  status: 'success',
  summary: 'Added the retry cap and its tests.',
  task: 'T-12',
  run: 'run-7',
  attempt: '2',
  intent: 'request_review',
  decisions: [
    { text: 'Capped retries at five', reason: 'the sixth never succeeded in the logs' },
    { text: 'Kept the queue' },
  ],
  assumptions: ['The dead-letter table exists'],
  openQuestions: ['Index delivery_id?'],
  deferred: [
    { category: 'feature', description: 'Per-tenant budget', reason: 'needs product input' },
  ],
  findings: [
    { severity: 'warn', summary: 'cap uses >', path: 'src/retry.ts', line: 27 },
    { severity: 'note', summary: 'consider jitter' },
  ],
  references: [{ path: 'src/retry.ts', line: 20, endLine: 30, note: 'the loop' }],
  confidence: { value: 90, justification: 'read and ran every path' },
  nextStep: 'review the cap',
  artifacts: [
    { path: 'src/retry.ts', action: 'modified' },
    { path: 'test/retry.test.ts', action: 'created' },
    { path: 'src/old.ts', action: 'deleted' },
    { path: 'docs/retry.md', action: 'touched', sha256: 'ab'.repeat(32) },
  ],
  checks: [{ command: 'npm test', result: 'passed', exitCode: 0 }],
  insights: [
    {
      id: 'INS-20260307100000-0a1b2c3d',
      category: 'pattern',
      content: 'Retries go through one queue helper',
    },
  ],
  anchors: { branch: 'feature/retry' },
};

function ledgerRecords(): LedgerRecord[] {
  const of = (
    claims: LedgerRecord['claims'],
    status: Status,
    observed: Partial<LedgerRecord['observed']> = {},
  ) => recordOf({ claims, status, reasons: [] }, 'ledger', { input: { root: REPO }, ...observed });
  return [
    of(RICH, 'success'),
    of({ ...RICH, status: 'partial' }, 'partial'),
    of({ ...RICH, status: 'success' }, 'failed', { witnesses: [WITNESS('npm test', 1)] }),
    of({ status: 'success' }, 'success'),
    of({ status: 'success', summary: 'flags only' }, 'success', {
      witnesses: [WITNESS('npm run build', 0)],
    }),
    of({ status: 'blocked', summary: 'waiting on credentials' }, 'blocked'),
    of({ status: 'failed' }, 'failed'),
  ];
}

describe('conversions keep what their loss report does not name', () => {
  const records = [...fixtureRecords(), ...ledgerRecords()];
  it('covers every format and every recordable shape', () => {
    expect(new Set(records.map((r) => r.format)).size).toBe(6);
    expect(SHAPES).toEqual(
      expect.arrayContaining([
        'ledger',
        'maxsim',
        'mainark',
        'kxm',
        'kxm-doc',
        'team',
        'structured',
      ]),
    );
  });
  for (const shape of SHAPES)
    it(`every record → ${shape} → recorded again`, () => {
      const broke = records.flatMap((record) => convert(record, shape));
      expect(broke, `\n${broke.join('\n')}`).toEqual([]);
    });

  it('generated ledger records → every shape', () => {
    // Text with the characters Markdown reads: a shape that cannot carry one says so.
    const text = fc
      .string({
        maxLength: 40,
        unit: fc.constantFrom(...'ab AZ-#|`*_:\n\t[]()<>\\0123.'.split('')),
      })
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const path = fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}\.(ts|md|json)$/);
    const claims = fc.record(
      {
        status: fc.constantFrom('success', 'partial', 'blocked', 'failed'),
        summary: text,
        task: fc.stringMatching(/^[A-Z]{2,4}-[0-9]{1,4}$/),
        decisions: fc.array(fc.record({ text }, { requiredKeys: ['text'] }), { maxLength: 3 }),
        openQuestions: fc.array(text, { maxLength: 2 }),
        findings: fc.array(
          fc.record({
            severity: fc.constantFrom('block', 'warn', 'note'),
            summary: text,
            path,
            line: fc.integer({ min: 1, max: 500 }),
          }),
          { maxLength: 3 },
        ),
        references: fc.array(fc.record({ path, line: fc.integer({ min: 1, max: 500 }) }), {
          maxLength: 3,
        }),
        artifacts: fc.array(
          fc.record({ path, action: fc.constantFrom('created', 'modified', 'deleted', 'touched') }),
          { maxLength: 3 },
        ),
        checks: fc.array(
          fc.record({
            command: fc.constantFrom('npm test', 'npm run lint', 'make check'),
            result: fc.constantFrom('passed', 'failed', 'skipped'),
          }),
          { maxLength: 2 },
        ),
        nextStep: text,
      },
      { requiredKeys: ['status'] },
    );
    fc.assert(
      fc.property(claims, fc.constantFrom(...SHAPES), (c, shape) => {
        const status = c.status as Status;
        convert(
          recordOf({ claims: c as LedgerRecord['claims'], status, reasons: [] }, 'ledger', {
            input: { root: REPO },
          }),
          shape,
        );
      }),
      { numRuns: 400 },
    );
  });
});
