/**
 * KXM handoffs (seed 002): the `kxm.handoff-manifest.v1` JSON and its Markdown view
 * (`kxm.doc.v1`), two shapes with two emitters, and the handoff lifecycle. See README.md here.
 */
import type { LedgerRecord } from '../../model/record.js';
import type {
  Detection,
  EmitContext,
  Emitted,
  FormatModule,
  ParseResult,
  Sniff,
  Uncheckable,
} from '../contract.js';
import { emitted } from '../kit/losses.js';
import { decodeText } from '../kit/text.js';
import { isObject, str, strings } from '../kit/values.js';
import { emitKxmDoc } from './doc-emit.js';
import { parseDocText } from './doc-parse.js';
import { kxmLifecycle, STEP_STATUS } from './lifecycle.js';
import { parseManifestText } from './manifest.js';
import { carriedBy, checksLoss, deliverablesLoss, toKxmManifest } from './manifest-emit.js';
import { KXM_STATUS_MEANING } from './schema.js';

function detect(input: Sniff): Detection {
  const json = input.json();
  const text = input.text();
  if (text === null) return { score: 0, signals: [] };
  if (json !== undefined || /^\s*[{[]/.test(text)) {
    if (/"schema"\s*:\s*"kxm\.handoff-manifest\.v1"/.test(text))
      return { score: 1, signals: ['"schema": "kxm.handoff-manifest.v1"'] };
    if (/"handoffId"/.test(text) && /"verificationEvidence"/.test(text))
      return { score: 0.6, signals: ['handoffId and verificationEvidence'] };
    return { score: 0, signals: [] };
  }
  const md = input.markdown();
  if (md?.frontMatter != null) {
    const schema = /^schema:\s*["']?kxm\.doc\.v1["']?/m.test(md.frontMatter);
    const type = /^type:\s*["']?handoff["']?/m.test(md.frontMatter);
    if (schema && type)
      return { score: 1, signals: ['front matter schema kxm.doc.v1, type handoff'] };
    if (schema) return { score: 0.5, signals: ['front matter schema kxm.doc.v1'] };
  }
  if (
    input.fileName !== undefined &&
    /kxm/i.test(input.fileName) &&
    /handoff/i.test(input.fileName)
  )
    return { score: 0.2, signals: ['a kxm handoff file name'] };
  return { score: 0, signals: [] };
}

function parse(bytes: Uint8Array): ParseResult {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  const head = decoded.text.trimStart();
  // JSON when it looks like JSON; anything else is the Markdown view, whose first problem then
  // says the front matter is missing.
  return head.startsWith('{') || head.startsWith('[') || head === ''
    ? parseManifestText(decoded.text)
    : parseDocText(decoded.text);
}

function emitManifest(record: LedgerRecord, context: EmitContext): Emitted {
  const { manifest, losses, witnessFrom } = toKxmManifest(record, context);
  const ve = manifest.verificationEvidence;
  losses.push(...deliverablesLoss(record, manifest.deliverables, losses));
  losses.push(
    ...checksLoss(
      record,
      [{ result: ve.witnessPassed ? 'passed' : 'failed', exitCode: ve.witnessExitCode }],
      witnessFrom,
    ),
  );
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  if (record.claims.anchors?.branch !== undefined)
    losses.push('claims.anchors.branch (the manifest has no branch; the kxm-doc view does)');
  return emitted(record, text, losses, {
    carries: carriedBy('manifest', record),
    own: false,
    keeps: ['anchors'],
    parse,
    rules: "KXM's rules",
  });
}

/** Report entries and patch lines that are prose, not artifact refs: verify cannot check them. */
function uncheckable(record: LedgerRecord): Uncheckable[] {
  return (strings(record.claims.extra?.['proseDeliverables']) ?? []).map((text, i) => ({
    id: `claims.extra.proseDeliverables[${i}]`,
    subject: text,
    reason:
      'a deliverable described in words, not an artifact:PATH@sha256 ref: ledger cannot check it',
  }));
}

export const kxm: FormatModule = {
  name: 'kxm',
  title: 'KXM handoff manifest and its Markdown view',
  readerRevision: 5,
  detect,
  parse,
  rederive(claims) {
    const step = isObject(claims.extra?.['lifecycle'])
      ? str((claims.extra['lifecycle'] as Record<string, unknown>)['to'])
      : undefined;
    const status = step === undefined ? undefined : STEP_STATUS[step];
    return status === undefined ? undefined : { claims, status, reasons: [] };
  },
  statusOf: (word) => KXM_STATUS_MEANING[word],
  wordFor: (status) =>
    status === 'success' ? 'accepted' : status === 'failed' ? 'rejected' : undefined,
  reasonCodes: {
    KXM_WITNESS_INCONSISTENT: 'witness exit code and witnessPassed disagree: failed',
    KXM_WITNESS_FAILED: 'the witness failed: failed',
    KXM_HANDOFF_REJECTED: 'lifecycle status rejected: failed',
    KXM_CRITIC_FAIL: 'a critic verdict FAIL: partial',
    KXM_DIGEST_MISSING: 'an artifact ref without a digest: a note (only presence is checked)',
    KXM_DIGEST_MALFORMED:
      'an artifact digest that is not 64 hex digits: a note (kept, not checked)',
    KXM_ARTIFACT_REF_MALFORMED: 'an artifact ref without a path: a note',
    KXM_ANCHOR_MALFORMED: 'an anchor that is not a full object id: a note (checked by prefix)',
    KXM_DOC_PLACEHOLDER: 'the Markdown view still has template placeholders: partial',
  },
  emitters: [
    { name: 'kxm', title: 'kxm.handoff-manifest.v1 (JSON)', emit: emitManifest },
    { name: 'kxm-doc', title: 'kxm.doc.v1 handoff page (Markdown view)', emit: emitKxmDoc },
  ],
  sourceShape: (record) => {
    const extra = record.claims.extra;
    return extra?.['shape'] === 'doc' ||
      (extra?.['shape'] === undefined && isObject(extra?.['frontMatter']))
      ? 'kxm-doc'
      : 'kxm';
  },
  verify: { uncheckable },
  lifecycle: kxmLifecycle,
};
