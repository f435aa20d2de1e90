/**
 * structured-handoff: every fixture, claims from both shapes, the skill's validation rules,
 * shape errors, detection and emitting, and parsers that never throw.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  itParsesOrRefusesText,
  reasonCodes,
  parsedFixture,
  parsesOrRefuses,
  recordOf,
} from '../helpers.js';

import { maxsim } from '../../../src/formats/maxsim/index.js';
import { structured } from '../../../src/formats/structured/index.js';
import { team } from '../../../src/formats/team/index.js';
import { emitAs } from '../../../src/formats/index.js';
import { lossFields, score } from '../helpers.js';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import type { LedgerRecord } from '../../../src/model/record.js';

const DIR = join(import.meta.dirname, '../../../fixtures/handoffs/structured');
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

const codes = reasonCodes;
function toRecord(h: ParsedHandoff, format: LedgerRecord['format'] = 'structured'): LedgerRecord {
  return recordOf(h, format);
}
const json = (o: Record<string, unknown>): Uint8Array =>
  enc(
    JSON.stringify({
      status: 'completed',
      summary: 's',
      artifacts: [],
      verification: [],
      findings: [],
      recommended_next_stage: null,
      ...o,
    }),
  );
function ok(bytes: Uint8Array): ParsedHandoff {
  const r = structured.parse(bytes, ctx);
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.problems)}`);
  return r.handoff;
}
const md = (
  status: string,
  verification: string,
  artifacts = '- src/a.ts',
  findings = '',
): string =>
  `## Handoff\n\nStatus: ${status}\n\nSummary:\nDid it.\n\nArtifacts:\n${artifacts}\n\nVerification:\n| command | result | details |\n|---|---|---|\n${verification}\n\nFindings:\n| severity | path | line | summary |\n|---|---|---:|---|\n${findings}\n\nRecommended next stage:\nnull\n`;

describe('structured fixtures', () => {
  const files = readdirSync(DIR)
    .filter((f) => !f.endsWith('.expected.json'))
    .sort();
  it('has at least 4 clean and 4 refused or rule-breaking fixtures', () => {
    const exp = files.map((f) =>
      JSON.parse(readFileSync(join(DIR, f.replace(/\.(md|json)$/, '.expected.json')), 'utf8')),
    );
    expect(
      exp.filter((e) => e.outcome === 'recorded' && e.reasonCodes.length === 0).length,
    ).toBeGreaterThanOrEqual(4);
    expect(
      exp.filter((e) => e.outcome === 'refused' || e.reasonCodes.length > 0).length,
    ).toBeGreaterThanOrEqual(4);
  });
  for (const file of files) {
    it(file, () => {
      const parsed = parsedFixture(structured, DIR, file, ctx);
      if (parsed === undefined) return;
      const { bytes, handoff } = parsed;
      const emitted = emitAs('structured', toRecord(handoff));
      // The same shape back: JSON as the same value, Markdown byte for byte.
      if (file.endsWith('.json'))
        expect(JSON.parse(dec(emitted.bytes))).toEqual(JSON.parse(bytes.toString('utf8')));
      else expect(dec(emitted.bytes)).toBe(bytes.toString('utf8'));
      const again = structured.parse(emitted.bytes, ctx);
      expect(again.ok && again.handoff.claims).toEqual(handoff.claims);
      expect(score(structured, bytes, file)).toBeGreaterThanOrEqual(0.9);
    });
  }
});

describe('structured claims', () => {
  it('maps rows to checks, findings, nextStep; keeps the claimed status word', () => {
    const h = ok(
      enc(
        md(
          'completed',
          '| `npm test` | passed | 3 ok |',
          '- src/a.ts',
          '| warn | /home/dev/project/src/a.ts | 7 | slow |',
        ),
      ),
    );
    expect(h.claims.status).toBe('completed');
    expect(h.status).toBe('success');
    expect(h.claims.checks).toEqual([{ command: 'npm test', result: 'passed', details: '3 ok' }]);
    expect(h.claims.findings).toEqual([
      { severity: 'warn', summary: 'slow', path: 'src/a.ts', line: 7 },
    ]);
    expect(h.claims.extra?.pathsAs).toEqual({ 'findings[0].path': '/home/dev/project/src/a.ts' });
    expect(h.claims.artifacts).toEqual([{ path: 'src/a.ts', action: 'touched' }]);
    const j = ok(
      json({
        recommended_next_stage: 'review',
        verification: [{ command: null, result: 'skipped', details: 'read-only' }],
      }),
    );
    expect(j.claims.nextStep).toBe('review');
    expect(j.claims.checks).toEqual([{ result: 'skipped', details: 'read-only' }]);
  });
  it('maps blocked and failed directly', () => {
    expect(
      ok(
        json({
          status: 'blocked',
          verification: [{ command: 'x', result: 'skipped', details: 'no db' }],
        }),
      ).status,
    ).toBe('blocked');
    expect(
      ok(
        json({
          status: 'failed',
          verification: [{ command: 'x', result: 'failed', details: '1' }],
        }),
      ).status,
    ).toBe('failed');
  });
});

describe('structured rules', () => {
  it('completed without a run verification → partial', () => {
    const h = ok(enc(md('completed', '| npm test | skipped | later |')));
    expect(h.status).toBe('partial');
    expect(codes(h)).toEqual(['STRUCTURED_COMPLETED_WITHOUT_VERIFICATION']);
  });
  it('documentation-only or read-only with an explicit skip reason is exempt', () => {
    expect(
      ok(
        enc(
          md(
            'completed',
            '| - | skipped | docs only: nothing to run |',
            '- docs/guide.md\n- README.md',
          ),
        ),
      ).status,
    ).toBe('success');
    expect(
      ok(
        json({
          verification: [
            { command: null, result: 'skipped', details: 'read-only review, nothing changed' },
          ],
        }),
      ).status,
    ).toBe('success');
  });
  it('documentation-only without an explicit reason is not exempt', () => {
    const h = ok(enc(md('completed', '| - | skipped | ... |', '- docs/guide.md')));
    expect(h.status).toBe('partial');
    expect(codes(h)).toEqual([
      'STRUCTURED_COMPLETED_WITHOUT_VERIFICATION',
      'STRUCTURED_SKIP_WITHOUT_REASON',
    ]);
  });
  it('completed with a failed row → failed; with a block finding → partial', () => {
    expect(ok(enc(md('completed', '| npm test | failed | 2 failing |'))).status).toBe('failed');
    const b = ok(
      enc(
        md(
          'completed',
          '| npm test | passed | ok |',
          '- src/a.ts',
          '| block | src/a.ts | 1 | secret committed |',
        ),
      ),
    );
    expect(b.status).toBe('partial');
    expect(codes(b)).toEqual(['STRUCTURED_COMPLETED_WITH_BLOCKING_FINDING']);
  });
  it('a path outside the repository is kept as written (unverifiable at verify), not a reason', () => {
    const h = ok(
      json({
        artifacts: ['/etc/hosts'],
        verification: [{ command: 'npm test', result: 'passed', details: '' }],
      }),
    );
    expect(h.claims.artifacts).toEqual([{ path: '/etc/hosts', action: 'touched' }]);
    expect(h.status).toBe('success');
    expect(codes(h)).toEqual([]);
  });
});

describe('false alarm: a struck-out artifact is withdrawn, not claimed (red team, round fifteen, finding 8)', () => {
  const WITHDRAWN = [
    { text: '~~src/old.ts~~ (dropped)', why: 'struck out (`~~`): a file withdrawn, not claimed' },
  ];

  it('Markdown: `- ~~src/old.ts~~ (dropped)` claims nothing and is kept as withdrawn', () => {
    const h = ok(
      enc(md('completed', '| true | passed | ok |', '- src/a.ts\n- ~~src/old.ts~~ (dropped)')),
    );
    expect(h.claims.artifacts).toEqual([{ path: 'src/a.ts', action: 'touched' }]);
    expect(h.claims.extra?.['proseArtifacts']).toBeUndefined();
    expect(h.claims.extra?.['withdrawnArtifacts']).toEqual(WITHDRAWN);
    // Written back as an artifact line: the rendering reads back the same.
    const back = structured.parse(emitAs('structured', toRecord(h)).bytes, ctx);
    expect(back.ok && back.handoff.claims).toEqual(h.claims);
  });

  it('JSON: an artifact written `~~src/old.ts~~` claims nothing either', () => {
    const h = ok(
      json({
        artifacts: ['src/a.ts', '~~src/old.ts~~ (dropped)'],
        verification: [{ command: 'true', result: 'passed', details: 'ok' }],
      }),
    );
    expect(h.claims.artifacts).toEqual([{ path: 'src/a.ts', action: 'touched' }]);
    expect(h.claims.extra?.['withdrawnArtifacts']).toEqual(WITHDRAWN);
  });
});

describe('structured shape errors', () => {
  it('refuses unknown keys, wrong types and missing keys, listing every one', () => {
    const r = structured.parse(
      enc(
        JSON.stringify({
          status: 'completed',
          summary: 3,
          artifacts: [1],
          verification: {},
          findings: [{ severity: 'warn' }],
          extra: true,
        }),
      ),
      ctx,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems.map((p) => p.path).sort()).toEqual([
        'artifacts[0]',
        'extra',
        'findings[0].summary',
        'recommended_next_stage',
        'summary',
        'verification',
      ]);
      expect(r.problems.find((p) => p.path === 'extra')).toMatchObject({
        message: 'unknown field "extra"',
      });
      expect(r.problems.find((p) => p.path === 'summary')).toMatchObject({
        expected: 'string',
        got: '3',
      });
    }
  });
  it('is exact about enums (case matters)', () => {
    const r = structured.parse(json({ status: 'Completed' }), ctx);
    expect(!r.ok && r.problems[0]).toMatchObject({ path: 'status', got: '"Completed"' });
  });
  it('refuses Markdown with a missing field or a table that is not a table', () => {
    const r = structured.parse(
      enc('## Handoff\n\nStatus: blocked\n\nVerification:\nran it, fine\n'),
      ctx,
    );
    expect(!r.ok && r.problems.map((p) => p.path).sort()).toEqual([
      'artifacts',
      'findings',
      'recommended_next_stage',
      'summary',
      'verification',
    ]);
    expect(structured.parse(enc('not a handoff'), ctx).ok).toBe(false);
    expect(structured.parse(enc('{"status": '), ctx).ok).toBe(false);
    expect(structured.parse(new Uint8Array([0xc3, 0x28]), ctx).ok).toBe(false);
  });
});

describe('structured detect and emit', () => {
  it('is confident on both shapes and low on the others', () => {
    expect(score(structured, json({}))).toBeGreaterThan(0.9);
    expect(score(structured, enc(md('completed', '')))).toBeGreaterThan(0.9);
    expect(score(structured, enc('{"schema":"kxm.handoff-manifest.v1","status":"pending"}'))).toBe(
      0,
    );
    expect(score(structured, enc('{"claims":[{"text":"x"}],"uncertainty":[]}'))).toBe(0);
    expect(score(structured, enc('### Key Decisions\n- a\n### Status\nPASS\n'))).toBe(0);
    expect(score(structured, enc('## qa Result\n### Status: SUCCESS\n'))).toBe(0);
    expect(
      score(
        structured,
        enc('{"id":"INS-20250121143000-a1b2c3d4","category":"pattern","content":"x"}'),
      ),
    ).toBe(0);
  });
  it('emits a maxsim record as Markdown with a loss report; the output parses', () => {
    const m = maxsim.parse(
      enc(
        '### Key Decisions\n- a\n\n### Artifacts\n- Created: src/a.ts\n\n### Status\nPARTIAL\n\nEvidence:\n- `npm test` 1 failed\n\n### Deferred Items\n- [bug] b -- c\n',
      ),
      ctx,
    );
    if (!m.ok) throw new Error('maxsim');
    const e = emitAs('structured', toRecord(m.handoff, 'maxsim'));
    expect(lossFields(e.losses)).toEqual(
      expect.arrayContaining([
        'claims.status',
        'claims.decisions',
        'claims.deferred',
        'claims.artifacts[0].action',
        'claims.extra',
        'observed.base',
      ]),
    );
    const back = structured.parse(e.bytes, ctx);
    expect(back.ok && back.handoff.claims.status).toBe('blocked');
    expect(back.ok && back.handoff.claims.checks).toEqual([
      { command: 'npm test', result: 'failed', details: '`npm test` 1 failed' },
    ]);
    const t = team.parse(
      enc(
        '## qa Result\n### Status\nSUCCESS\n### Findings\n| ID | Issue | Severity |\n|---|---|---|\n| Q1 | flaky | Critical |\n',
      ),
      ctx,
    );
    if (!t.ok) throw new Error('team');
    const te = emitAs('structured', toRecord(t.handoff, 'team'));
    expect(lossFields(te.losses)).toContain('claims.findings[0].severity');
    expect(structured.parse(te.bytes, ctx).ok).toBe(true);
  });
});

const LINES = [
  '## Handoff',
  '# Handoff',
  'Status: completed',
  'Status: blocked',
  'Status: failed',
  'Status: done',
  'Summary:',
  'Artifacts:',
  '- src/a.ts',
  '- /etc/x',
  '- `docs/a.md` notes',
  'Verification:',
  '| command | result | details |',
  '|---|---|---|',
  '| npm test | passed | ok |',
  '| x | skipped | |',
  '| y | nope | z |',
  'Findings:',
  '| severity | path | line | summary |',
  '|---|---|---:|---|',
  '| warn | a.ts | 3 | s |',
  '| note | | x | s |',
  'Recommended next stage:',
  'null',
  'None',
  '',
  '```',
  '## Other',
  'text',
  '| a | b |',
];

describe('structured never throws', () => {
  itParsesOrRefusesText(structured, ctx, LINES);
  const check = parsesOrRefuses(structured, ctx);
  it('on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => check(enc(JSON.stringify(v) ?? 'null'))),
      { numRuns: 1000 },
    );
  });
  it('on JSON objects mixing its own keys', () => {
    const value = fc.oneof(
      fc.constantFrom('completed', 'blocked', 'passed', 'skipped', 'warn', null, 3, 1.5),
      fc.string(),
      fc.jsonValue(),
    );
    const row = fc.dictionary(
      fc.constantFrom('command', 'result', 'details', 'severity', 'summary', 'path', 'line', 'x'),
      value,
    );
    const obj = fc.record(
      {
        status: value,
        summary: value,
        artifacts: fc.array(value),
        verification: fc.array(row),
        findings: fc.array(row),
        recommended_next_stage: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(obj, (o) => check(enc(JSON.stringify(o)))),
      { numRuns: 1000 },
    );
  });
});
