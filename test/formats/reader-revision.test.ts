/**
 * A format's reader revision (FormatModule.readerRevision) must move whenever what its reader
 * derives moves: a v5 record names the revision that sealed it, and verify trusts a record of
 * its own revision to re-derive exactly (src/verify/reader-revision.ts). A reader change that
 * forgets the bump would turn every record the previous build sealed from such a document into
 * an integrity failure on the next verify.
 *
 * So the status and reasons each reader derives for every handoff this project holds (the
 * fixtures, the real documents of the corpus and their lies) are pinned per format with the
 * revision they were derived under, in fixtures/reader-revisions.json. A change to any of them
 * under the same revision fails here, naming the documents; after bumping the revision, pin the
 * new derivations with
 *
 *     LEDGER_PIN_READERS=1 npx vitest run test/formats/reader-revision.test.ts
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatModules, type FormatModule } from '../../src/formats/index.js';
import { PROJECT_ROOT } from '../helpers/git.js';

const PIN_FILE = join(PROJECT_ROOT, 'fixtures', 'reader-revisions.json');
const PIN = process.env['LEDGER_PIN_READERS'] === '1';
const CORPUS = join(PROJECT_ROOT, 'test', 'formats', 'corpus');
const NOW = new Date('2026-12-05T00:00:00Z');

interface Pinned {
  readerRevision: number;
  /** Document name → its status and a digest of its reasons (or of its refusal). */
  derivations: Record<string, string>;
}

interface Lie {
  id: string;
  append?: string;
  replace?: [string, string][];
}
interface Document {
  id?: string;
  file: string;
  format?: string;
  lies?: Lie[];
}

/**
 * The ledger's own JSON handoff has no fixture folder (its tests build handoffs inline); these
 * cover its reader: each status word, a handoff with every claim kind, and two refusals.
 */
const LEDGER_HANDOFFS: Record<string, unknown> = {
  success: { status: 'success', summary: 'Added the parser' },
  partial: {
    status: 'partial',
    summary: 'Half done',
    deferred: [{ category: 'tests', description: 'e2e' }],
  },
  blocked: { status: 'blocked', openQuestions: ['Which API version?'] },
  failed: { status: 'failed', summary: 'Build broke' },
  'every-claim': {
    status: 'success',
    summary: 'Parser',
    decisions: [{ text: 'Kept it pure', reason: 'testable' }],
    artifacts: [{ path: 'src/p.ts', action: 'created' }],
    checks: [{ command: 'npm test', result: 'passed', exitCode: 0 }],
    references: [{ path: 'src/p.ts', line: 3 }],
    findings: [{ severity: 'note', summary: 'slow path', path: 'src/p.ts', line: 9 }],
    confidence: { value: 80 },
  },
  'refused-observed-field': { status: 'success', effectiveStatus: 'success' },
  'refused-unknown-status': { status: 'done' },
};

/** Every input of `format` this project holds, by a stable name. */
function inputsOf(format: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  if (format === 'ledger')
    for (const [name, handoff] of Object.entries(LEDGER_HANDOFFS))
      out.set(`inline/ledger/${name}.json`, Buffer.from(JSON.stringify(handoff)));
  const fixtures = join(PROJECT_ROOT, 'fixtures', 'handoffs', format);
  let names: string[] = [];
  try {
    names = readdirSync(fixtures);
  } catch {
    // a format without fixtures of its own (the ledger's JSON is covered by its tests)
  }
  for (const name of names.sort())
    if (!name.endsWith('.expected.json'))
      out.set(`fixtures/${format}/${name}`, readFileSync(join(fixtures, name)));
  for (const list of ['manifest.json', 'gsd.json']) {
    const { documents } = JSON.parse(readFileSync(join(CORPUS, list), 'utf8')) as {
      documents: Document[];
    };
    for (const doc of documents) {
      if ((doc.format ?? 'maxsim') !== format) continue;
      const text = readFileSync(join(CORPUS, doc.file), 'utf8');
      out.set(`corpus/${doc.file}`, Buffer.from(text));
      for (const lie of doc.lies ?? []) {
        let lied = text;
        for (const [from, to] of lie.replace ?? []) lied = lied.replace(from, to);
        if (lie.append !== undefined) lied += lie.append;
        out.set(`corpus/${doc.file}#${lie.id}`, Buffer.from(lied));
      }
    }
  }
  return out;
}

/** What the reader derives for one input, in one line: status and a digest of the reasons. */
function derivation(module: FormatModule, name: string, bytes: Uint8Array): string {
  const fileName = basename(name.split('#')[0]!);
  const result = module.parse(bytes, {
    repoRoot: '/repo',
    fileName,
    attachments: new Map(),
    now: NOW,
  });
  const what = result.ok
    ? { status: result.handoff.status, reasons: result.handoff.reasons }
    : { refused: result.problems.map((p) => [p.path ?? '', p.message]) };
  const digest = createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 16);
  return `${result.ok ? result.handoff.status : 'refused'} ${digest}`;
}

const pinned = JSON.parse(readFileSync(PIN_FILE, 'utf8')) as Record<string, Pinned>;
const now: Record<string, Pinned> = {};

describe('reader revisions: what each reader derives moves only with its revision', () => {
  for (const module of formatModules()) {
    it(`${module.name}: the derivations pinned under revision ${module.readerRevision}`, () => {
      const derivations: Record<string, string> = {};
      for (const [name, bytes] of inputsOf(module.name))
        derivations[name] = derivation(module, name, bytes);
      now[module.name] = { readerRevision: module.readerRevision, derivations };
      if (PIN) return;
      const before = pinned[module.name];
      expect(before, `no derivations pinned for ${module.name}`).toBeDefined();
      expect(
        module.readerRevision,
        `the ${module.name} reader's revision went down (pinned ${before!.readerRevision})`,
      ).toBeGreaterThanOrEqual(before!.readerRevision);
      const pinAgain =
        'pin with LEDGER_PIN_READERS=1 npx vitest run test/formats/reader-revision.test.ts';
      // A document added since the pin is not a change of the reader: it only needs pinning.
      const unpinned = Object.keys(derivations).filter((name) => !(name in before!.derivations));
      const changed = Object.keys(before!.derivations).filter(
        (name) => before!.derivations[name] !== derivations[name],
      );
      const advice =
        module.readerRevision === before!.readerRevision
          ? `the ${module.name} reader derives differently under the same revision ${module.readerRevision}: bump readerRevision in src/formats/${module.name}/index.ts, then ${pinAgain}`
          : `the ${module.name} reader's revision moved to ${module.readerRevision}: ${pinAgain}`;
      expect({ readerRevision: module.readerRevision, changed }, advice).toEqual({
        readerRevision: before!.readerRevision,
        changed: [],
      });
      expect(unpinned, `documents added since the pin: ${pinAgain}`).toEqual([]);
      // The pin covers real work: every format has documents beyond a handful.
      expect(Object.keys(derivations).length).toBeGreaterThanOrEqual(5);
    });
  }
});

afterAll(() => {
  if (PIN) writeFileSync(PIN_FILE, `${JSON.stringify(now, null, 2)}\n`);
});
