/**
 * Red team, round twelve (finding 8): a Key Reference written as a GitHub anchor
 * (`` `src/services/auth.ts#L8` ``, `#L15-L18`), the form of a GitHub link agents often use, was
 * read as a file named `auth.ts#L8`: contradicted ("no such file"), and the 30% rule then failed
 * an honest result. Upstream's own check (verify_references.py) extracts only `path.ext:line`
 * tokens and does not count these at all. An anchor is now the line (range) it names, read like
 * `:8` and `:15-18`: an honest one resolves, one past the end is contradicted for its line.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { team } from '../../../src/formats/team/index.js';
import { cleanup } from '../../helpers/git.js';
import { EN, parsed, recordAndVerify } from './real-result.js';

afterAll(cleanup);

function edited(text: string, pairs: [string, string][]): string {
  let out = text;
  for (const [from, to] of pairs) {
    if (!out.includes(from)) throw new Error('the document changed');
    out = out.replace(from, to);
  }
  return out;
}

/** The real code-explorer result with its Key References written as GitHub anchors. */
const ANCHORED = edited(EN, [
  ['| `src/services/auth.ts:8` |', '| `src/services/auth.ts#L8` |'],
  ['| `src/middleware/jwt.ts:15` |', '| `src/middleware/jwt.ts#L15-L18` |'],
  ['| `src/repositories/user.ts:5` |', '| `src/repositories/user.ts#L5C3` |'],
]);

const references = (h: ParsedHandoff): string[] =>
  (h.claims.references ?? []).map(
    (r) => `${r.path}:${r.line ?? ''}${r.endLine === undefined ? '' : `-${r.endLine}`}`,
  );

describe('attack: a GitHub anchor (#L8, #L15-L18) names a line, not a file', () => {
  it('in the Key References table: the line (range) it names, as `:8` and `:15-18` are read', () => {
    expect(references(parsed(ANCHORED))).toEqual([
      'src/services/auth.ts:8',
      'src/middleware/jwt.ts:15-18',
      'src/repositories/user.ts:5',
    ]);
  });

  it('in a Findings item and a Key References list alike; a GitHub URL stays prose', () => {
    const text = edited(ANCHORED, [
      [
        '- Evidence: `src/services/auth.ts:8`, `src/repositories/user.ts:5`',
        '- Evidence: `src/services/auth.ts#L9`, see https://github.com/o/r/blob/main/src/api/auth.ts#L999',
      ],
      [
        ANCHORED.slice(ANCHORED.indexOf('| Item | Location |'), ANCHORED.indexOf('### Confidence')),
        '- `src/middleware/jwt.ts#L16` — Token validation\n\n',
      ],
    ]);
    const h = parsed(text);
    const places = [
      ...(h.claims.findings ?? []).map((f) => `${f.path ?? ''}:${f.line ?? ''}`),
      ...references(h),
    ];
    expect(places).toContain('src/services/auth.ts:9');
    expect(references(h)).toContain('src/middleware/jwt.ts:16');
    expect(places.filter((p) => p.includes('#') || p.includes(':999'))).toEqual([]);
  });

  it('a root-level anchor that may be a host (`utils.py#L40`) is said as written, with its line, like `utils.py:40`', () => {
    const text = edited(ANCHORED, [
      ['- Pattern: Repository + Service + Controller', '- Pattern: as in utils.py#L40'],
    ]);
    const unchecked = (parsed(text).claims.extra?.['unchecked'] ?? []) as unknown[];
    expect(unchecked).toEqual([
      {
        line: text.split('\n').indexOf('- Pattern: as in utils.py#L40') + 1,
        text: 'utils.py#L40',
        why: 'a root-level name whose extension (.py) is a country domain too: a file at a line or a host at a port, not guessed',
      },
    ]);
  });

  it("claude-progress.json's key files: an anchor is its line there too", () => {
    const progress = {
      workspaceId: 'main_a1b2c3d4',
      status: 'in_progress',
      resumptionContext: { keyFiles: ['src/services/auth.ts#L8', 'src/middleware/jwt.ts#L15-L18'] },
    };
    const r = team.parse(Buffer.from(JSON.stringify(progress)), {
      repoRoot: '/home/dev/project',
      now: new Date('2026-03-07T10:00:00Z'),
      fileName: 'claude-progress.json',
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(references(r.handoff)).toEqual([
      'src/services/auth.ts:8',
      'src/middleware/jwt.ts:15-18',
    ]);
  });

  it('through record and verify --strict: the honest anchors resolve, no 30% failure, exit 0', async () => {
    const { exitCode, checks } = await recordAndVerify(ANCHORED);
    expect(checks.filter((c) => c.verdict !== 'verified').map((c) => c.detail)).toEqual([]);
    expect(exitCode).toBe(0);
  });

  it('through record and verify: an anchor past the end of its file is contradicted for its line, not as a missing file', async () => {
    const lie = edited(ANCHORED, [['#L15-L18', '#L15-L180']]);
    const { exitCode, checks } = await recordAndVerify(lie);
    expect(
      checks.filter((c) => c.verdict === 'contradicted').map((c) => `${c.subject}: ${c.detail}`),
    ).toEqual(['src/middleware/jwt.ts:15: line 180 is past the end (20 lines)']);
    expect(exitCode).toBe(1);
  });
});
