/**
 * Red team, round twelve, finding 6: a handoff saved by Windows PowerShell 5.1 (`>`, `Out-File`:
 * UTF-16LE with a byte-order mark) was answered "could not tell which format … name it with
 * --format", and with --format "not valid UTF-8 text": neither said UTF-16, nor how to re-save
 * it. The encoding is now recognised before detection and before any format parses, and the
 * refusal says what the file is and the PowerShell to re-save it as UTF-8.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, formatModule } from '../../../src/formats/index.js';
import { isLedgerError } from '../../../src/model/errors.js';
import { runBinInProcess } from '../../helpers/cli-in-process.js';
import { cleanup, gitdir, refs } from '../../helpers/git.js';

afterAll(cleanup);

const HANDOFF =
  '{"status":"success","summary":"Added the user service.","artifacts":[{"path":"src/user.ts","action":"created"}]}\n';
const utf16le = (s: string, bom = true): Uint8Array =>
  Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(s, 'utf16le')]);
const utf16be = (s: string): Uint8Array => {
  const le = Buffer.from(s, 'utf16le');
  return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(le).swap16()]);
};
const utf32le = (s: string): Uint8Array => {
  const out = Buffer.alloc(4 + s.length * 4);
  out.set([0xff, 0xfe, 0, 0]);
  for (let i = 0; i < s.length; i++) out.writeUInt32LE(s.charCodeAt(i), 4 + i * 4);
  return out;
};

function refusal(bytes: Uint8Array): { code: string; text: string } {
  try {
    detectFormat(bytes, 'handoff.json');
  } catch (error) {
    if (isLedgerError(error)) return { code: error.code, text: `${error.message} ${error.hint}` };
    throw error;
  }
  return { code: 'none', text: 'detected' };
}

describe('clarity: a UTF-16 or UTF-32 handoff is named as such, with how to re-save it', () => {
  const cases: [string, Uint8Array, RegExp][] = [
    ['UTF-16LE with a byte-order mark (PowerShell 5.1 >)', utf16le(HANDOFF), /UTF-16/],
    ['UTF-16BE with a byte-order mark', utf16be(HANDOFF), /UTF-16/],
    ['UTF-32LE with a byte-order mark', utf32le(HANDOFF), /UTF-32/],
    ['UTF-16LE without a byte-order mark', utf16le(HANDOFF, false), /UTF-16/],
  ];
  for (const [what, bytes, encoding] of cases) {
    it(`detection refuses ${what} as INVALID_INPUT naming the encoding and Out-File -Encoding utf8`, () => {
      const { code, text } = refusal(bytes);
      expect(code).toBe('INVALID_INPUT');
      expect(text).toMatch(encoding);
      expect(text).toMatch(/Out-File -Encoding utf8/);
      expect(text).toMatch(/Set-Content -Encoding utf8/);
      expect(text).not.toMatch(/Name it with --format/);
    });
  }

  it('with a format named, every reader says the same (not "not valid UTF-8 text")', () => {
    for (const name of ['ledger', 'team', 'structured', 'maxsim', 'kxm', 'mainark'] as const) {
      const r = formatModule(name).parse(utf16le(HANDOFF), {
        repoRoot: '/home/dev/project',
        now: new Date('2026-03-07T10:00:00Z'),
      });
      expect(r.ok, name).toBe(false);
      const text = r.ok ? '' : r.problems.map((p) => p.message).join(' ');
      expect(text, name).toMatch(/UTF-16.*Out-File -Encoding utf8/);
    }
  });

  it('plain UTF-8 text, and UTF-8 with its byte-order mark, are untouched', () => {
    expect(detectFormat(new TextEncoder().encode(HANDOFF), 'handoff.json').module.name).toBe(
      'ledger',
    );
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(HANDOFF)]);
    expect(detectFormat(bom, 'handoff.json').module.name).toBe('ledger');
  });

  it('record --from a UTF-16 file refuses it as UTF-16, detected or with --format, and writes nothing', async () => {
    const repo = gitdir();
    writeFileSync(join(repo, 'handoff.json'), utf16le(HANDOFF));
    const before = refs(repo);
    for (const extra of [[], ['--format', 'ledger']]) {
      const r = await runBinInProcess(['record', '--from', 'handoff.json', ...extra], repo);
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/UTF-16/);
      expect(r.stderr).toMatch(/Out-File -Encoding utf8/);
    }
    expect(refs(repo)).toBe(before);
  }, 120_000);
});
