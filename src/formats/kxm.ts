/**
 * KXM handoffs: the `kxm.handoff-manifest.v1` JSON (validated against a zod mirror of the real
 * schema in shared/formats/002-kxm-handoff-manifest) and its Markdown view (`kxm.doc.v1`), plus
 * the lifecycle (pending → accepted | rejected | superseded) as pure helpers.
 *
 * Effective status from a manifest (the schema has no success field, so the evidence decides):
 *   - witness exit code and `witnessPassed` disagree        → failed  (KXM_WITNESS_INCONSISTENT)
 *   - witness failed (exit ≠ 0, passed false)                → failed  (KXM_WITNESS_FAILED)
 *   - lifecycle status `rejected`                            → failed  (KXM_HANDOFF_REJECTED)
 *   - any critic verdict `FAIL`                              → partial (KXM_CRITIC_FAIL)
 *   - otherwise                                              → success
 * The worst one wins; every one that applies is a reason. Digests and anchors that upstream
 * accepts but `ledger` cannot verify are reasons without a status effect.
 */
import { z } from 'zod';
import { LedgerError, type Problem } from '../model/errors.js';
import type { Claims, LedgerRecord, Reason, Status } from '../model/record.js';
import {
  code,
  oneLine,
  readKxmDoc,
  writeFrontMatter,
  type DocBullet,
  type FrontMatter,
  type FrontValue,
} from './kxm-markdown.js';
import type { Emitted, FormatModule, ParseContext, ParsedHandoff, ParseResult } from './types.js';

export const KXM_MANIFEST_SCHEMA = 'kxm.handoff-manifest.v1';
export const KXM_DOC_SCHEMA = 'kxm.doc.v1';

export const KXM_INTENTS = [
  'request_review',
  'dispatch_fix',
  'request_approval',
  'complete_workflow',
] as const;
export const KXM_LIFECYCLE = ['pending', 'accepted', 'rejected', 'superseded'] as const;
export type KxmLifecycleStatus = (typeof KXM_LIFECYCLE)[number];
export const KXM_PERMISSIONS = ['read-only', 'edit', 'admin'] as const;
export const KXM_VERDICTS = ['PASS', 'FAIL', 'WARN', 'UNKNOWN'] as const;
/** The intents of the older template (`handoff.md` @6e51683); accepted in the Markdown view only. */
export const KXM_DOC_LEGACY_INTENTS = ['continue', 'reject_rework_required', 'complete'] as const;
export const KXM_DOC_STATUSES = [
  'draft',
  'in_review',
  'approved',
  'superseded',
  'archived',
] as const;

/** common.schema.json#/$defs/timestamp, which the manifest's `createdAt` `$ref`s. */
export const KXM_TIMESTAMP =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z$/;
/** common.schema.json#/$defs/gitCommit: what `ledger` can check an anchor against. */
const GIT_COMMIT = /^[a-f0-9]{40,64}$/;
const ARTIFACT_REF = /^artifact:(.*)$/s;

// ---------------------------------------------------------------------------------------------
// The schema, mirrored in zod
// ---------------------------------------------------------------------------------------------

/** JSON Schema counts string length in code points; JS `.length` counts UTF-16 units. */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function str(min?: number, max?: number): z.ZodType<string> {
  let s: z.ZodType<string> = z.string();
  if (min !== undefined) s = s.refine((v) => codePoints(v) >= min, { message: `minLength ${min}` });
  if (max !== undefined) s = s.refine((v) => codePoints(v) <= max, { message: `maxLength ${max}` });
  return s;
}

export const KxmSource = z.strictObject({
  role: str(1, 64),
  agentId: str(1, 64),
  harness: str(1, 64),
  model: str(undefined, 128).optional(),
  stepId: str(1, 64),
  attemptId: str(1, 128),
});
export const KxmTarget = z.strictObject({ role: str(1, 64), permission: z.enum(KXM_PERMISSIONS) });
export const KxmArtifact = z.strictObject({ name: z.string(), artifactRef: z.string() });
export const KxmDeliverables = z.strictObject({
  patches: z.array(z.string()),
  reports: z.array(z.string()),
  artifacts: z.array(KxmArtifact),
});
export const KxmCriticVerdict = z.strictObject({
  critic: z.string(),
  verdict: z.enum(KXM_VERDICTS),
  summary: z.string().optional(),
});
export const KxmVerificationEvidence = z.strictObject({
  // JSON Schema `integer` is unbounded; the record model keeps safe integers only.
  witnessExitCode: z.number().int(),
  witnessPassed: z.boolean(),
  criticVerdicts: z.array(KxmCriticVerdict),
});
export const KxmSuggestedNextStep = z.strictObject({
  stepId: z.string().optional(),
  action: z.string().optional(),
});

/** `kxm.handoff-manifest.v1`, property for property (additionalProperties: false everywhere). */
export const KxmManifest = z.strictObject({
  schema: z.literal(KXM_MANIFEST_SCHEMA),
  handoffId: str(1, 128),
  taskId: str(1, 128),
  workflowRunId: str(1, 128),
  reworkOf: z.union([z.string(), z.null()]).optional(),
  source: KxmSource,
  target: KxmTarget,
  intent: z.enum(KXM_INTENTS),
  status: z.enum(KXM_LIFECYCLE),
  baseCommit: str(undefined, 64),
  candidateTreeHash: str(undefined, 64).optional(),
  deliverables: KxmDeliverables,
  verificationEvidence: KxmVerificationEvidence,
  openQuestions: z.array(z.string()).optional(),
  suggestedNextStep: KxmSuggestedNextStep.optional(),
  createdAt: z.string().regex(KXM_TIMESTAMP, 'common.schema.json#/$defs/timestamp'),
});
export type KxmManifest = z.infer<typeof KxmManifest>;

// ---------------------------------------------------------------------------------------------
// Problems
// ---------------------------------------------------------------------------------------------

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

export function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** Every zod issue as a located Problem saying what was expected and what was got. */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[], input: unknown): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const got = valueAt(input, issue.path);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          const path = [...issue.path, key];
          problems.push({
            path: formatPath(path),
            message: `unknown property "${key}" (the schema allows no additional properties here)`,
            expected: 'no additional properties',
            got: describe(valueAt(input, path)),
          });
        }
        break;
      case 'invalid_type':
        problems.push({
          path: formatPath(issue.path),
          message:
            got === undefined
              ? 'required property is missing'
              : `wrong type: expected ${issue.expected}`,
          expected: issue.expected === 'int' ? 'integer' : issue.expected,
          got: describe(got),
        });
        break;
      case 'invalid_value':
        problems.push({
          path: formatPath(issue.path),
          message:
            got === undefined
              ? 'required property is missing'
              : 'value is not one of the allowed values',
          expected:
            issue.values.length === 1
              ? JSON.stringify(issue.values[0])
              : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`,
          got: describe(got),
        });
        break;
      case 'invalid_format':
        problems.push({
          path: formatPath(issue.path),
          message: `does not match ${issue.message}`,
          expected:
            'pattern' in issue && typeof issue.pattern === 'string'
              ? `pattern ${issue.pattern}`
              : issue.format,
          got: describe(got),
        });
        break;
      case 'invalid_union':
        problems.push({
          path: formatPath(issue.path),
          message: 'wrong type',
          expected: 'string or null',
          got: describe(got),
        });
        break;
      default:
        problems.push({
          path: formatPath(issue.path),
          message: issue.message,
          expected: issue.message,
          got: describe(got),
        });
    }
  }
  return problems;
}

export function decodeUtf8(
  bytes: Uint8Array,
): { ok: true; text: string } | { ok: false; problem: Problem } {
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return {
      ok: false,
      problem: {
        path: '',
        message: 'the input is not valid UTF-8',
        expected: 'UTF-8 text',
        got: 'invalid byte sequence',
      },
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Mapping helpers shared by the JSON and the Markdown view
// ---------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Digested {
  artifacts: NonNullable<Claims['artifacts']>;
  reasons: Reason[];
}

/** `artifact:PATH@sha256:HEX` → a claimed artifact (digest only when it is 64 hex digits). */
function readArtifactRefs(
  refs: readonly string[],
  plainPathsAreArtifacts: readonly string[],
): Digested {
  const artifacts: NonNullable<Claims['artifacts']> = [];
  const reasons: Reason[] = [];
  const seen = new Set<string>();
  const add = (a: NonNullable<Claims['artifacts']>[number]): void => {
    const key = `${a.path}\0${a.sha256 ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    artifacts.push(a);
  };
  for (const ref of refs) {
    const m = ARTIFACT_REF.exec(ref);
    if (m === null) continue;
    const body = m[1] ?? '';
    const at = body.lastIndexOf('@sha256:');
    const path = (at < 0 ? body : body.slice(0, at)).slice(0, 4096);
    if (path === '') {
      reasons.push({
        code: 'KXM_ARTIFACT_REF_MALFORMED',
        message: `artifact ref ${describe(ref)} names no path`,
        subject: ref.slice(0, 4096),
      });
      continue;
    }
    if (at < 0) {
      reasons.push({
        code: 'KXM_DIGEST_MISSING',
        message: `artifact ref for ${path} carries no @sha256: digest; only its presence can be checked`,
        subject: path,
      });
      add({ path, action: 'touched' });
      continue;
    }
    const digest = body.slice(at + '@sha256:'.length);
    if (/^[0-9a-fA-F]{64}$/.test(digest))
      add({ path, action: 'touched', sha256: digest.toLowerCase() });
    else {
      reasons.push({
        code: 'KXM_DIGEST_MALFORMED',
        message: `artifact ref for ${path} has digest ${describe(digest)}, not 64 hex digits: recorded, cannot be verified (kept in claims.extra.deliverables)`,
        subject: path,
      });
      add({ path, action: 'touched' });
    }
  }
  for (const p of plainPathsAreArtifacts) {
    if (ARTIFACT_REF.test(p) || p === '' || /\s/.test(p) || p.length > 4096) continue;
    add({ path: p, action: 'modified' });
  }
  return { artifacts, reasons };
}

function anchorReasons(baseCommit: string | undefined, candidate: string | undefined): Reason[] {
  const reasons: Reason[] = [];
  for (const [name, value] of [
    ['baseCommit', baseCommit],
    ['candidateTreeHash', candidate],
  ] as const) {
    if (value !== undefined && !GIT_COMMIT.test(value)) {
      reasons.push({
        code: 'KXM_ANCHOR_MALFORMED',
        message: `${name} ${describe(value)} is not a full git object id (40–64 lowercase hex): it cannot be checked exactly`,
        subject: name,
      });
    }
  }
  return reasons;
}

interface Evidence {
  exitCode?: number | undefined;
  passed?: boolean | undefined;
  verdicts: readonly { critic: string; verdict: string; summary?: string | undefined }[];
  lifecycle?: string | undefined;
}

const RANK: Record<Status, number> = { success: 0, partial: 1, blocked: 2, failed: 3 };

/** The KXM status rule (see the module comment). */
export function deriveKxmStatus(e: Evidence): { status: Status; reasons: Reason[] } {
  let status: Status = 'success';
  const reasons: Reason[] = [];
  const worsen = (s: Status): void => {
    if (RANK[s] > RANK[status]) status = s;
  };
  if (e.exitCode !== undefined && e.passed !== undefined) {
    if ((e.exitCode === 0) !== e.passed) {
      reasons.push({
        code: 'KXM_WITNESS_INCONSISTENT',
        message: `witness exit code ${e.exitCode} contradicts witnessPassed ${String(e.passed)}`,
        subject: 'verificationEvidence',
      });
      worsen('failed');
    } else if (!e.passed) {
      reasons.push({
        code: 'KXM_WITNESS_FAILED',
        message: `the witness failed (exit code ${e.exitCode})`,
        subject: 'verificationEvidence',
      });
      worsen('failed');
    }
  } else if (e.passed === false || (e.exitCode !== undefined && e.exitCode !== 0)) {
    reasons.push({
      code: 'KXM_WITNESS_FAILED',
      message: 'the witness failed',
      subject: 'verificationEvidence',
    });
    worsen('failed');
  }
  if (e.lifecycle === 'rejected') {
    reasons.push({
      code: 'KXM_HANDOFF_REJECTED',
      message: 'the handoff was rejected by its target role',
      subject: 'status',
    });
    worsen('failed');
  }
  for (const v of e.verdicts) {
    if (v.verdict === 'FAIL') {
      reasons.push({
        code: 'KXM_CRITIC_FAIL',
        message: `critic ${describe(v.critic)} gave FAIL${v.summary === undefined ? '' : `: ${v.summary}`}`,
        subject: v.critic.slice(0, 4096),
      });
      worsen('partial');
    }
  }
  return { status, reasons };
}

function nextStepText(step: {
  stepId?: string | undefined;
  action?: string | undefined;
}): string | undefined {
  const parts: string[] = [];
  if (step.stepId !== undefined && step.stepId !== '') parts.push(`step ${step.stepId}`);
  if (step.action !== undefined && step.action !== '') parts.push(`action ${step.action}`);
  return parts.length === 0 ? undefined : parts.join(', ');
}

function short(s: string): string {
  return s.slice(0, 4096);
}

/** Drops undefined members so the claims satisfy exactOptionalPropertyTypes and the model. */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

// ---------------------------------------------------------------------------------------------
// parse: the JSON manifest
// ---------------------------------------------------------------------------------------------

/** Validates a manifest value against the schema; every problem, located. */
export function validateKxmManifest(
  value: unknown,
): { ok: true; manifest: KxmManifest } | { ok: false; problems: Problem[] } {
  const r = KxmManifest.safeParse(value);
  return r.success
    ? { ok: true, manifest: r.data }
    : { ok: false, problems: issuesToProblems(r.error.issues, value) };
}

/** Manifest → claims: the mapping documented on each line; the rest in `extra` by KXM's names. */
export function manifestToHandoff(m: KxmManifest): ParsedHandoff {
  const ve = m.verificationEvidence;
  const refs = [
    ...m.deliverables.patches,
    ...m.deliverables.reports,
    ...m.deliverables.artifacts.map((a) => a.artifactRef),
  ];
  const digested = readArtifactRefs(refs, m.deliverables.patches);
  const derived = deriveKxmStatus({
    exitCode: ve.witnessExitCode,
    passed: ve.witnessPassed,
    verdicts: ve.criticVerdicts,
    lifecycle: m.status,
  });
  const extra: Record<string, Json> = {
    handoffId: m.handoffId,
    createdAt: m.createdAt,
    source: m.source as unknown as Json,
    target: m.target as unknown as Json,
    deliverables: m.deliverables as unknown as Json,
    verificationEvidence: {
      ...ve,
      witnessExitCode: ve.witnessExitCode === 0 ? 0 : ve.witnessExitCode,
    } as unknown as Json,
  };
  if (m.reworkOf === null) extra['reworkOf'] = null;
  if (m.suggestedNextStep !== undefined)
    extra['suggestedNextStep'] = m.suggestedNextStep as unknown as Json;
  const nextStep =
    m.suggestedNextStep === undefined ? undefined : nextStepText(m.suggestedNextStep);
  const claims: Claims = compact({
    status: m.status,
    task: short(m.taskId),
    run: short(m.workflowRunId),
    attempt: short(m.source.attemptId),
    intent: m.intent,
    reworkOf: typeof m.reworkOf === 'string' ? short(m.reworkOf) : undefined,
    openQuestions: m.openQuestions,
    nextStep,
    artifacts: digested.artifacts.length > 0 ? digested.artifacts : undefined,
    checks: [
      {
        result: ve.witnessPassed ? ('passed' as const) : ('failed' as const),
        exitCode: ve.witnessExitCode === 0 ? 0 : ve.witnessExitCode,
        details: 'KXM witness (verificationEvidence.witnessExitCode / witnessPassed)',
      },
    ],
    findings: verdictFindings(ve.criticVerdicts),
    anchors: compact({ baseCommit: m.baseCommit, candidateTree: m.candidateTreeHash }),
    extra,
  });
  return {
    claims,
    status: derived.status,
    reasons: [
      ...derived.reasons,
      ...digested.reasons,
      ...anchorReasons(m.baseCommit, m.candidateTreeHash),
    ],
  };
}

function verdictFindings(
  verdicts: readonly { critic: string; verdict: string; summary?: string | undefined }[],
): Claims['findings'] {
  if (verdicts.length === 0) return undefined;
  return verdicts.map((v) => ({
    severity: v.verdict,
    summary: `${v.critic}: ${v.verdict}${v.summary === undefined ? '' : ` — ${v.summary}`}`,
  }));
}

function parseManifestText(text: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: `not JSON: ${error instanceof Error ? error.message : String(error)}`,
          expected: 'a JSON object',
          got: describe(text.slice(0, 40)),
        },
      ],
    };
  }
  const v = validateKxmManifest(value);
  return v.ok ? { ok: true, handoff: manifestToHandoff(v.manifest) } : v;
}

// ---------------------------------------------------------------------------------------------
// parse: the Markdown view
// ---------------------------------------------------------------------------------------------

function norm(label: string): string {
  return label.toLowerCase().replace(/[^a-z]/g, '');
}

/** The contents of every inline code span, in order. */
function spans(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(`+)(.+?)\1(?!`)/g)) {
    let s = m[2] ?? '';
    if (s.length >= 2 && s.startsWith(' ') && s.endsWith(' ')) s = s.slice(1, -1);
    out.push(s);
  }
  return out;
}

function first(text: string): string {
  return spans(text)[0] ?? text.trim();
}

/** `role \`x\`, agent \`y\`` and `(Harness: \`x\`, Model: \`y\`)` → { role: x, agent: y, … }. */
function keyedSpans(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let last = 0;
  for (const m of text.matchAll(/(`+)(.+?)\1(?!`)/g)) {
    const between = text.slice(last, m.index);
    last = m.index + m[0].length;
    const words = between.match(/[A-Za-z][A-Za-z-]*/g);
    const key = norm(words?.[words.length - 1] ?? '');
    let value = m[2] ?? '';
    if (value.length >= 2 && value.startsWith(' ') && value.endsWith(' '))
      value = value.slice(1, -1);
    if (key !== '' && !Object.hasOwn(out, key)) out[key] = value;
  }
  return out;
}

function items(b: DocBullet): string[] {
  const list = [...(b.value === '' ? [] : [b.value]), ...b.children]
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return list;
}

function isPlaceholder(s: string): boolean {
  return /<[a-z][a-z0-9_ -]*>/i.test(s);
}

interface DocState {
  manifest: Record<string, unknown>;
  source: Record<string, string>;
  target: Record<string, string>;
  claims: Partial<Claims>;
  decisions: string[];
  assumptions: string[];
  openQuestions: string[];
  verdicts: { critic: string; verdict: string; summary?: string }[];
  refs: { kind: 'patches' | 'reports' | 'artifacts'; name?: string; ref: string }[];
  witness: { command?: string; exitCode?: number; passed?: boolean; receiptHash?: string };
  unmapped: Json[];
  problems: Problem[];
  placeholders: string[];
}

function readBullet(st: DocState, section: string, b: DocBullet): void {
  const label = b.label === null ? null : norm(b.label);
  const where = `${section} / ${b.label ?? '(bullet)'}`;
  const path = `body.${section === '' ? 'section' : section}.${b.label ?? 'bullet'}`;
  const raw = [b.value, ...b.children].join(' ');
  if (isPlaceholder(raw)) st.placeholders.push(where);
  const sectionKey = norm(section);
  if (label === null) {
    const refs = spans(raw).filter((s) => ARTIFACT_REF.test(s));
    if (refs.length > 0) {
      for (const ref of refs) st.refs.push({ kind: 'artifacts', ref });
      return;
    }
    st.unmapped.push({ section, label: null, value: b.value, children: b.children });
    return;
  }
  switch (label) {
    case 'workflowrunid':
      st.claims.run = short(first(b.value));
      return;
    case 'taskid':
      st.claims.task = short(first(b.value));
      return;
    case 'source':
    case 'sourcerole': {
      const keyed = keyedSpans(raw);
      if (label === 'sourcerole') st.source['role'] = first(b.value);
      for (const [k, v] of Object.entries(keyed)) {
        const key =
          k === 'agent' ? 'agentId' : k === 'step' ? 'stepId' : k === 'attempt' ? 'attemptId' : k;
        if (key === 'role' && label === 'sourcerole') continue;
        st.source[key] = v;
      }
      return;
    }
    case 'target':
    case 'targetrole': {
      const keyed = keyedSpans(raw);
      if (label === 'targetrole') st.target['role'] = first(b.value);
      for (const [k, v] of Object.entries(keyed)) {
        if (k === 'role' && label === 'targetrole') continue;
        st.target[k] = v;
      }
      return;
    }
    case 'intent':
      st.manifest['intent'] = first(b.value);
      return;
    case 'reworkof': {
      const v = first(b.value);
      st.manifest['reworkOf'] = /^(none|null|-)?$/i.test(v) ? null : v;
      return;
    }
    case 'basecommit':
      st.manifest['baseCommit'] = first(b.value);
      return;
    case 'candidatetreehash':
      st.manifest['candidateTreeHash'] = first(b.value);
      return;
    case 'candidatecommit':
      st.manifest['candidateCommit'] = first(b.value);
      return;
    case 'branch':
    case 'deterministicbranch':
      st.claims.anchors = { ...st.claims.anchors, branch: short(first(b.value)) };
      return;
    case 'patches':
    case 'reports':
      for (const s of items(b).flatMap((i) => (spans(i).length > 0 ? spans(i) : [i])))
        st.refs.push({ kind: label, ref: s });
      return;
    case 'artifacts':
      for (const item of items(b)) {
        const sp = spans(item);
        if (sp.length >= 2)
          st.refs.push({ kind: 'artifacts', name: sp[0] ?? '', ref: sp[1] ?? '' });
        else if (sp.length === 1) st.refs.push({ kind: 'artifacts', name: '', ref: sp[0] ?? '' });
      }
      return;
    case 'command':
    case 'witnesscommand':
      st.witness.command = first(b.value);
      return;
    case 'exitcode':
    case 'witnessexitcode': {
      const v = first(b.value);
      if (/^-?\d{1,15}$/.test(v)) st.witness.exitCode = Number(v) === 0 ? 0 : Number(v);
      else if (!isPlaceholder(v))
        st.problems.push({
          path,
          message: 'witness exit code is not an integer',
          expected: 'integer',
          got: v,
        });
      return;
    }
    case 'witnesspassed': {
      const v = first(b.value);
      if (v === 'true' || v === 'false') st.witness.passed = v === 'true';
      else if (!isPlaceholder(v))
        st.problems.push({
          path,
          message: 'witness passed is not a boolean',
          expected: 'true or false',
          got: v,
        });
      return;
    }
    case 'receipthash':
      st.witness.receiptHash = first(b.value);
      return;
    case 'criticverdicts':
      for (const item of items(b)) {
        const m = /^(`+)(.+?)\1:\s*(`+)([A-Za-z]+)\3\.?\s*(?:,\s*)?(.*)$/.exec(item);
        if (m === null) {
          st.unmapped.push({ section, label: b.label, value: item, children: [] });
          continue;
        }
        const verdict = m[4] ?? '';
        if (!(KXM_VERDICTS as readonly string[]).includes(verdict)) {
          if (!isPlaceholder(item))
            st.problems.push({
              path,
              message: 'critic verdict is not one of the allowed values',
              expected: `one of ${KXM_VERDICTS.join(', ')}`,
              got: verdict,
            });
          continue;
        }
        const summary = (m[5] ?? '').trim();
        st.verdicts.push({ critic: m[2] ?? '', verdict, ...(summary === '' ? {} : { summary }) });
      }
      return;
    case 'settleddecisions':
      st.decisions.push(...items(b));
      return;
    case 'assumptions':
      st.assumptions.push(...items(b));
      return;
    case 'openquestions':
    case 'openquestionsnotesfortargetrole':
      st.openQuestions.push(...items(b));
      return;
    case 'suggestednextstep': {
      const keyed = keyedSpans(raw);
      const step: Record<string, string> = {};
      if (keyed['step'] !== undefined) step['stepId'] = keyed['step'];
      if (keyed['action'] !== undefined) step['action'] = keyed['action'];
      if (Object.keys(step).length > 0) st.manifest['suggestedNextStep'] = step;
      else st.manifest['suggestedNextStep'] = { action: oneLine(raw) };
      return;
    }
    default:
      st.unmapped.push({ section, label: b.label, value: b.value, children: b.children });
      void sectionKey;
  }
}

function frontString(fm: FrontMatter, key: string): string | undefined {
  const v = fm[key];
  return typeof v === 'string' ? v : undefined;
}

function checkDocFrontMatter(fm: FrontMatter): Problem[] {
  const problems: Problem[] = [];
  if (fm['schema'] !== KXM_DOC_SCHEMA) {
    problems.push({
      path: 'frontMatter.schema',
      message: 'not a kxm.doc.v1 page',
      expected: JSON.stringify(KXM_DOC_SCHEMA),
      got: describe(fm['schema']),
    });
  }
  if (fm['type'] !== 'handoff') {
    problems.push({
      path: 'frontMatter.type',
      message: 'not a handoff page',
      expected: '"handoff"',
      got: describe(fm['type']),
    });
  }
  const status = fm['status'];
  if (
    status !== undefined &&
    !(typeof status === 'string' && (KXM_DOC_STATUSES as readonly string[]).includes(status))
  ) {
    problems.push({
      path: 'frontMatter.status',
      message: 'document status is not one of the allowed values',
      expected: `one of ${KXM_DOC_STATUSES.join(', ')}`,
      got: describe(status),
    });
  }
  const details = fm['details'];
  if (
    details !== undefined &&
    (details === null || typeof details !== 'object' || Array.isArray(details))
  ) {
    problems.push({
      path: 'frontMatter.details',
      message: 'details is not a map',
      expected: 'a map',
      got: describe(details),
    });
  } else if (details !== undefined) {
    const d = details as Record<string, FrontValue>;
    const intent = d['intent'];
    const intents: readonly string[] = [...KXM_INTENTS, ...KXM_DOC_LEGACY_INTENTS];
    if (intent !== undefined && !(typeof intent === 'string' && intents.includes(intent))) {
      problems.push({
        path: 'frontMatter.details.intent',
        message: 'intent is not one of the allowed values',
        expected: `one of ${intents.join(', ')}`,
        got: describe(intent),
      });
    }
    const hs = d['handoff_status'];
    if (
      hs !== undefined &&
      !(typeof hs === 'string' && (KXM_LIFECYCLE as readonly string[]).includes(hs))
    ) {
      problems.push({
        path: 'frontMatter.details.handoff_status',
        message: 'handoff status is not one of the allowed values',
        expected: `one of ${KXM_LIFECYCLE.join(', ')}`,
        got: describe(hs),
      });
    }
    const ms = d['manifest_schema'];
    if (ms !== undefined && ms !== KXM_MANIFEST_SCHEMA) {
      problems.push({
        path: 'frontMatter.details.manifest_schema',
        message: 'unknown manifest schema',
        expected: JSON.stringify(KXM_MANIFEST_SCHEMA),
        got: describe(ms),
      });
    }
  }
  return problems;
}

function parseDocText(text: string): ParseResult {
  const read = readKxmDoc(text);
  if (!read.ok) return read;
  const { frontMatter: fm, title, preamble, sections } = read.doc;
  const problems = checkDocFrontMatter(fm);
  const details = (
    fm['details'] !== null && typeof fm['details'] === 'object' && !Array.isArray(fm['details'])
      ? fm['details']
      : {}
  ) as Record<string, FrontValue>;
  const st: DocState = {
    manifest: {},
    source: {},
    target: {},
    claims: {},
    decisions: [],
    assumptions: [],
    openQuestions: [],
    verdicts: [],
    refs: [],
    witness: {},
    unmapped: [],
    problems: [],
    placeholders: [],
  };
  const text_: Json[] = [];
  for (const s of sections) {
    for (const b of s.bullets) readBullet(st, s.heading, b);
    if (s.text.length > 0) text_.push({ section: s.heading, lines: s.text });
  }
  problems.push(...st.problems);
  const bodyIntent = st.manifest['intent'];
  if (
    typeof bodyIntent === 'string' &&
    !isPlaceholder(bodyIntent) &&
    !([...KXM_INTENTS, ...KXM_DOC_LEGACY_INTENTS] as readonly string[]).includes(bodyIntent)
  ) {
    problems.push({
      path: 'body.Intent',
      message: 'intent is not one of the allowed values',
      expected: `one of ${KXM_INTENTS.join(', ')}`,
      got: bodyIntent,
    });
  }
  if (problems.length > 0) return { ok: false, problems };

  const lifecycle =
    typeof details['handoff_status'] === 'string' ? details['handoff_status'] : undefined;
  const status = lifecycle ?? frontString(fm, 'status') ?? '';
  const intent =
    typeof details['intent'] === 'string'
      ? details['intent']
      : typeof bodyIntent === 'string'
        ? bodyIntent
        : undefined;
  const derived = deriveKxmStatus({
    exitCode: st.witness.exitCode,
    passed: st.witness.passed,
    verdicts: st.verdicts,
    lifecycle,
  });
  const refStrings = st.refs.map((r) => r.ref).filter((r) => !isPlaceholder(r));
  const digested = readArtifactRefs(
    refStrings,
    st.refs.filter((r) => r.kind === 'patches' && !isPlaceholder(r.ref)).map((r) => r.ref),
  );
  const reasons: Reason[] = [...derived.reasons, ...digested.reasons];
  const baseCommit =
    typeof st.manifest['baseCommit'] === 'string' ? st.manifest['baseCommit'] : undefined;
  const candidate =
    typeof st.manifest['candidateTreeHash'] === 'string'
      ? st.manifest['candidateTreeHash']
      : undefined;
  reasons.push(
    ...anchorReasons(
      baseCommit !== undefined && isPlaceholder(baseCommit) ? undefined : baseCommit,
      candidate !== undefined && isPlaceholder(candidate) ? undefined : candidate,
    ),
  );
  if (st.placeholders.length > 0) {
    reasons.push({
      code: 'KXM_DOC_PLACEHOLDER',
      message: `the template was not filled in: placeholders remain in ${st.placeholders.join('; ')}`,
      subject: short(st.placeholders[0] ?? ''),
    });
  }
  let effective = derived.status;
  if (st.placeholders.length > 0 && RANK[effective] < RANK.partial) effective = 'partial';

  const extra: Record<string, Json> = { frontMatter: fm as Json };
  if (title !== null) extra['docTitle'] = title;
  if (preamble.length > 0) extra['docPreamble'] = preamble;
  if (Object.keys(st.source).length > 0) extra['source'] = st.source;
  if (Object.keys(st.target).length > 0) extra['target'] = st.target;
  if (st.refs.length > 0) {
    extra['deliverables'] = {
      patches: st.refs.filter((r) => r.kind === 'patches').map((r) => r.ref),
      reports: st.refs.filter((r) => r.kind === 'reports').map((r) => r.ref),
      artifacts: st.refs
        .filter((r) => r.kind === 'artifacts')
        .map((r) => ({ name: r.name ?? '', artifactRef: r.ref })),
    };
  }
  const ve: Record<string, Json> = {};
  if (st.witness.exitCode !== undefined) ve['witnessExitCode'] = st.witness.exitCode;
  if (st.witness.passed !== undefined) ve['witnessPassed'] = st.witness.passed;
  if (st.verdicts.length > 0) ve['criticVerdicts'] = st.verdicts as unknown as Json;
  if (st.witness.receiptHash !== undefined) ve['receiptHash'] = st.witness.receiptHash;
  if (Object.keys(ve).length > 0) extra['verificationEvidence'] = ve;
  if (st.manifest['reworkOf'] === null) extra['reworkOf'] = null;
  if (st.manifest['candidateCommit'] !== undefined)
    extra['candidateCommit'] = st.manifest['candidateCommit'] as Json;
  if (st.manifest['suggestedNextStep'] !== undefined)
    extra['suggestedNextStep'] = st.manifest['suggestedNextStep'] as Json;
  if (st.unmapped.length > 0) extra['docUnmapped'] = st.unmapped;
  if (text_.length > 0) extra['docText'] = text_;

  const hasWitness =
    st.witness.exitCode !== undefined ||
    st.witness.passed !== undefined ||
    st.witness.command !== undefined;
  const check = hasWitness
    ? [
        compact({
          command: st.witness.command === undefined ? undefined : short(st.witness.command),
          result:
            st.witness.passed === undefined
              ? st.witness.exitCode === undefined
                ? ('skipped' as const)
                : st.witness.exitCode === 0
                  ? ('passed' as const)
                  : ('failed' as const)
              : st.witness.passed
                ? ('passed' as const)
                : ('failed' as const),
          exitCode: st.witness.exitCode,
          details: 'KXM witness (Markdown view)',
        }),
      ]
    : undefined;
  const reworkOf =
    typeof st.manifest['reworkOf'] === 'string'
      ? st.manifest['reworkOf']
      : typeof details['rework_of'] === 'string'
        ? details['rework_of']
        : undefined;
  const summary = frontString(fm, 'summary');
  const nextStep =
    st.manifest['suggestedNextStep'] === undefined
      ? undefined
      : nextStepText(st.manifest['suggestedNextStep'] as { stepId?: string; action?: string });
  const anchors = compact({
    baseCommit: baseCommit === undefined ? undefined : short(baseCommit),
    candidateTree: candidate === undefined ? undefined : short(candidate),
    branch: st.claims.anchors?.branch,
  });
  const claims: Claims = compact({
    status: short(status),
    summary,
    task: st.claims.task,
    run:
      st.claims.run ??
      (typeof details['workflow_run_id'] === 'string'
        ? short(details['workflow_run_id'])
        : undefined),
    attempt: st.source['attemptId'] === undefined ? undefined : short(st.source['attemptId']),
    intent: intent === undefined ? undefined : short(intent),
    reworkOf: reworkOf === undefined ? undefined : short(reworkOf),
    decisions: st.decisions.length > 0 ? st.decisions.map((t) => ({ text: t })) : undefined,
    assumptions: st.assumptions.length > 0 ? st.assumptions : undefined,
    openQuestions: st.openQuestions.length > 0 ? st.openQuestions : undefined,
    nextStep,
    artifacts: digested.artifacts.length > 0 ? digested.artifacts : undefined,
    checks: check,
    findings: verdictFindings(st.verdicts),
    anchors: Object.keys(anchors).length > 0 ? anchors : undefined,
    extra,
  });
  return { ok: true, handoff: { claims, status: effective, reasons } };
}

// ---------------------------------------------------------------------------------------------
// detect
// ---------------------------------------------------------------------------------------------

function detectText(bytes: Uint8Array): string | null {
  const d = decodeUtf8(bytes.subarray(0, Math.min(bytes.length, 1 << 20)));
  if (d.ok) return d.text;
  return null;
}

function looksLikeDoc(text: string): boolean {
  return /^\uFEFF?---\s*\r?\n/.test(text);
}

/** How sure this is a KXM manifest or kxm.doc.v1 handoff page. Never throws. */
export function detectKxm(bytes: Uint8Array, fileName?: string): number {
  try {
    const text = detectText(bytes);
    if (text === null) return 0;
    const trimmed = text.trimStart();
    if (trimmed.startsWith('{')) {
      if (/"schema"\s*:\s*"kxm\.handoff-manifest\.v1"/.test(text)) return 1;
      if (/"handoffId"/.test(text) && /"verificationEvidence"/.test(text)) return 0.6;
      return 0;
    }
    if (looksLikeDoc(text)) {
      const head = text.slice(0, 4096);
      const schema = /^schema:\s*["']?kxm\.doc\.v1["']?/m.test(head);
      const type = /^type:\s*["']?handoff["']?/m.test(head);
      if (schema && type) return 1;
      if (schema) return 0.5;
    }
    if (fileName !== undefined && /kxm/i.test(fileName) && /handoff/i.test(fileName)) return 0.2;
    return 0;
  } catch {
    return 0;
  }
}

/** Parses either KXM shape: the JSON manifest or the Markdown view. */
export function parseKxm(bytes: Uint8Array, _context?: ParseContext): ParseResult {
  try {
    const decoded = decodeUtf8(bytes);
    if (!decoded.ok) return { ok: false, problems: [decoded.problem] };
    const text = decoded.text.replace(/^\uFEFF/, '');
    // JSON when it looks like JSON; anything else is read as the Markdown view, whose first
    // problem then says the front matter is missing.
    const head = text.trimStart();
    if (head.startsWith('{') || head.startsWith('[') || head === '') return parseManifestText(text);
    return parseDocText(text);
  } catch (error) {
    // A parser bug must not crash `ledger record`; say so as a problem instead.
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: `internal parser error: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
    };
  }
}

// ---------------------------------------------------------------------------------------------
// emit
// ---------------------------------------------------------------------------------------------

function fit(value: string | undefined, max: number, fallback: string, min = 1): string {
  if (value === undefined) return fallback;
  const cps = Array.from(value);
  if (cps.length < min) return fallback;
  return cps.length > max ? cps.slice(0, max).join('') : value;
}

function compactTime(iso: string): string {
  return iso.replace(/[^0-9]/g, '').slice(0, 14);
}

function extraOf(record: LedgerRecord): Record<string, unknown> {
  return record.format === 'kxm' && record.claims.extra !== undefined ? record.claims.extra : {};
}

/** Builds a manifest the schema accepts from any record; `losses` names what it cannot carry. */
export function toKxmManifest(record: LedgerRecord): { manifest: KxmManifest; losses: string[] } {
  const c = record.claims;
  const o = record.observed;
  const x = extraOf(record);
  const losses: string[] = [];

  const sourceX = KxmSource.safeParse(x['source']);
  const targetX = KxmTarget.safeParse(x['target']);
  const delivX = KxmDeliverables.safeParse(x['deliverables']);
  const veX = KxmVerificationEvidence.safeParse(x['verificationEvidence']);
  const nextX = KxmSuggestedNextStep.safeParse(x['suggestedNextStep']);
  const key = (o.source?.sha256 ?? o.candidate.tree).slice(0, 16);
  const run = fit(c.run, 128, `run_${compactTime(o.recordedAt)}`);

  const sourcePartial =
    x['source'] !== null && typeof x['source'] === 'object'
      ? (x['source'] as Record<string, unknown>)
      : {};
  const s = (k: string): string | undefined =>
    typeof sourcePartial[k] === 'string' ? sourcePartial[k] : undefined;
  const source = sourceX.success
    ? sourceX.data
    : compact({
        role: fit(s('role'), 64, 'writer'),
        agentId: fit(s('agentId') ?? o.producer, 64, 'unknown-agent'),
        harness: fit(s('harness'), 64, 'unknown'),
        model: s('model') === undefined ? undefined : fit(s('model'), 128, '', 0),
        stepId: fit(s('stepId'), 64, 'handoff'),
        attemptId: fit(s('attemptId') ?? c.attempt, 128, '1'),
      });
  const targetPartial =
    x['target'] !== null && typeof x['target'] === 'object'
      ? (x['target'] as Record<string, unknown>)
      : {};
  const tp = targetPartial['permission'];
  const target = targetX.success
    ? targetX.data
    : {
        role: fit(
          typeof targetPartial['role'] === 'string' ? targetPartial['role'] : undefined,
          64,
          'reviewer',
        ),
        permission: (KXM_PERMISSIONS as readonly unknown[]).includes(tp)
          ? (tp as (typeof KXM_PERMISSIONS)[number])
          : ('read-only' as const),
      };

  let deliverables: z.infer<typeof KxmDeliverables>;
  if (delivX.success) deliverables = delivX.data;
  else {
    const artifacts: { name: string; artifactRef: string }[] = [];
    const named = new Set<string>();
    for (const a of o.artifacts) {
      artifacts.push({ name: a.path, artifactRef: `artifact:${a.path}@sha256:${a.sha256}` });
      named.add(a.path);
    }
    for (const a of c.artifacts ?? []) {
      if (named.has(a.path)) continue;
      if (a.sha256 !== undefined) {
        artifacts.push({ name: a.path, artifactRef: `artifact:${a.path}@sha256:${a.sha256}` });
        named.add(a.path);
      } else
        losses.push(`claims.artifacts[${a.path}] (no digest: a KXM artifact ref needs @sha256)`);
    }
    deliverables = { patches: [], reports: [], artifacts };
  }

  let verificationEvidence: z.infer<typeof KxmVerificationEvidence>;
  const veObj =
    x['verificationEvidence'] !== null && typeof x['verificationEvidence'] === 'object'
      ? (x['verificationEvidence'] as Record<string, unknown>)
      : {};
  const veExit = z.number().int().safeParse(veObj['witnessExitCode']);
  const vePassed = z.boolean().safeParse(veObj['witnessPassed']);
  const veVerdicts = z.array(KxmCriticVerdict).safeParse(veObj['criticVerdicts']);
  if (veX.success) verificationEvidence = veX.data;
  else if (veExit.success && vePassed.success) {
    verificationEvidence = {
      witnessExitCode: veExit.data,
      witnessPassed: vePassed.data,
      criticVerdicts: veVerdicts.success ? veVerdicts.data : [],
    };
    for (const k of Object.keys(veObj))
      if (!['witnessExitCode', 'witnessPassed', 'criticVerdicts'].includes(k))
        losses.push(`claims.extra.verificationEvidence.${k}`);
  } else {
    const w = o.witnesses[0];
    const check = c.checks?.[0];
    const criticVerdicts = veVerdicts.success ? veVerdicts.data : [];
    if (w !== undefined && w.exitCode !== null) {
      verificationEvidence = {
        witnessExitCode: w.exitCode,
        witnessPassed: w.exitCode === 0,
        criticVerdicts,
      };
    } else if (check !== undefined && check.result !== 'skipped') {
      const exit = check.exitCode ?? (check.result === 'passed' ? 0 : 1);
      verificationEvidence = {
        witnessExitCode: exit,
        witnessPassed: exit === 0 && check.result === 'passed',
        criticVerdicts,
      };
      if (check.exitCode === undefined)
        losses.push(
          'claims.checks[0].exitCode (absent: KXM witnessExitCode derived from the result)',
        );
    } else {
      verificationEvidence = { witnessExitCode: -1, witnessPassed: false, criticVerdicts };
      losses.push(
        'verificationEvidence (no witness was observed or claimed: emitted as not passed, exit code -1)',
      );
    }
    if (w !== undefined && w.exitCode === null)
      losses.push('observed.witnesses[0] (no exit code: timed out or killed by a signal)');
    if (o.witnesses.length > 1) losses.push('observed.witnesses[1..] (KXM carries one witness)');
  }
  if (o.witnesses[0] !== undefined)
    losses.push(
      'observed.witnesses[0].command (the manifest has no witness command; the Markdown view does)',
    );
  else if (c.checks?.[0]?.command !== undefined)
    losses.push(
      'claims.checks[0].command (the manifest has no witness command; the Markdown view does)',
    );

  const intent = (KXM_INTENTS as readonly string[]).includes(c.intent ?? '')
    ? (c.intent as (typeof KXM_INTENTS)[number])
    : 'request_review';
  if (c.intent !== undefined && intent !== c.intent)
    losses.push(`claims.intent (${c.intent} is not a KXM intent: emitted as request_review)`);
  const status = (KXM_LIFECYCLE as readonly string[]).includes(c.status)
    ? (c.status as KxmLifecycleStatus)
    : 'pending';
  if (status !== c.status)
    losses.push(`claims.status (${c.status} is not a KXM lifecycle status: emitted as pending)`);

  const baseClaim = c.anchors?.baseCommit;
  // KXM requires a base commit; a record made before the repository's first commit has none,
  // which git itself spells as the all-zero object id.
  if (baseClaim === undefined && o.base.commit === null)
    losses.push(
      'observed.base.commit (none: recorded before the first commit; emitted as the zero id)',
    );
  const baseCommit =
    baseClaim !== undefined && codePoints(baseClaim) <= 64
      ? baseClaim
      : (o.base.commit ?? '0'.repeat(40));
  const treeClaim = c.anchors?.candidateTree;
  // A KXM handoff that stated no candidate tree gets none back; any other record gets the observed one.
  const candidateTreeHash =
    treeClaim !== undefined && codePoints(treeClaim) <= 64
      ? treeClaim
      : record.format === 'kxm' && treeClaim === undefined
        ? undefined
        : o.candidate.tree;
  const createdAt =
    typeof x['createdAt'] === 'string' && KXM_TIMESTAMP.test(x['createdAt'])
      ? x['createdAt']
      : o.recordedAt;
  const handoffId = fit(
    typeof x['handoffId'] === 'string' ? x['handoffId'] : undefined,
    128,
    `hnd_${key}`,
  );

  const manifest: KxmManifest = compact({
    schema: KXM_MANIFEST_SCHEMA,
    handoffId,
    taskId: fit(c.task, 128, `task_${key}`),
    workflowRunId: run,
    reworkOf: c.reworkOf ?? (x['reworkOf'] === null ? null : undefined),
    source,
    target,
    intent,
    status,
    baseCommit,
    candidateTreeHash,
    deliverables,
    verificationEvidence,
    openQuestions: c.openQuestions,
    suggestedNextStep:
      nextX.success && x['suggestedNextStep'] !== undefined
        ? nextX.data
        : c.nextStep === undefined
          ? undefined
          : { action: c.nextStep },
    createdAt,
  }) as KxmManifest;

  for (const field of [
    'summary',
    'decisions',
    'assumptions',
    'deferred',
    'references',
    'confidence',
    'insights',
  ] as const) {
    if (c[field] !== undefined) losses.push(`claims.${field}`);
  }
  if (c.findings !== undefined && !(record.format === 'kxm' && veVerdicts.success))
    losses.push('claims.findings');
  if (c.anchors?.branch !== undefined)
    losses.push('claims.anchors.branch (the manifest has no branch; the Markdown view does)');
  if ((c.checks?.length ?? 0) > 1) losses.push('claims.checks[1..] (KXM carries one witness)');
  const known = new Set([
    'handoffId',
    'createdAt',
    'source',
    'target',
    'deliverables',
    'verificationEvidence',
    'reworkOf',
    'suggestedNextStep',
  ]);
  for (const k of Object.keys(c.extra ?? {}))
    if (!known.has(k) || record.format !== 'kxm') losses.push(`claims.extra.${k}`);
  if (o.evidence.length > 0) losses.push('observed.evidence');
  if (o.branch !== undefined) losses.push('observed.branch');
  losses.push('observed.effectiveStatus', 'observed.reasons');
  return { manifest, losses };
}

const encoder = new TextEncoder();

function emitKxm(record: LedgerRecord): Emitted {
  const { manifest, losses } = toKxmManifest(record);
  return { bytes: encoder.encode(`${JSON.stringify(manifest, null, 2)}\n`), losses };
}

function bulletList(label: string, values: readonly string[]): string[] {
  if (values.length === 0) return [`- **${label}:** none`];
  if (values.length === 1) return [`- **${label}:** ${oneLine(values[0] ?? '')}`];
  return [`- **${label}:**`, ...values.map((v) => `  - ${oneLine(v)}`)];
}

/** Renders the `kxm.doc.v1` Markdown view (the seed template's sections) from any record. */
export function toKxmDoc(record: LedgerRecord): Emitted {
  const { manifest: m, losses: manifestLosses } = toKxmManifest(record);
  const c = record.claims;
  const o = record.observed;
  const x = extraOf(record);
  const losses = manifestLosses.filter(
    (l) =>
      !l.startsWith('claims.decisions') &&
      !l.startsWith('claims.assumptions') &&
      !l.startsWith('claims.summary') &&
      !l.startsWith('claims.anchors.branch') &&
      !l.startsWith('observed.branch') &&
      !l.includes('witness command') &&
      !/^claims\.extra\.(frontMatter|docTitle|docPreamble|docUnmapped|docText|candidateCommit)$/.test(
        l,
      ),
  );
  const fmX =
    x['frontMatter'] !== null &&
    typeof x['frontMatter'] === 'object' &&
    !Array.isArray(x['frontMatter'])
      ? (x['frontMatter'] as FrontMatter)
      : {};
  const day = o.recordedAt.slice(0, 10);
  const fm: FrontMatter = {
    schema: KXM_DOC_SCHEMA,
    id: typeof fmX['id'] === 'string' ? fmX['id'] : m.handoffId,
    type: 'handoff',
    title: typeof fmX['title'] === 'string' ? fmX['title'] : `Handoff ${m.handoffId}`,
    project: typeof fmX['project'] === 'string' ? fmX['project'] : 'kxm',
    status:
      typeof fmX['status'] === 'string'
        ? fmX['status']
        : m.status === 'superseded'
          ? 'superseded'
          : m.status === 'accepted'
            ? 'approved'
            : 'in_review',
    owner: typeof fmX['owner'] === 'string' ? fmX['owner'] : `@${m.source.role}`,
    created: typeof fmX['created'] === 'string' ? fmX['created'] : m.createdAt.slice(0, 10),
    updated: typeof fmX['updated'] === 'string' ? fmX['updated'] : day,
    authority: typeof fmX['authority'] === 'string' ? fmX['authority'] : 'evidence',
    confidence: typeof fmX['confidence'] === 'string' ? fmX['confidence'] : 'claimed',
    summary:
      c.summary ??
      `Handoff from ${m.source.role} to ${m.target.role} for workflow run ${m.workflowRunId}.`,
    tags: Array.isArray(fmX['tags']) ? fmX['tags'] : ['handoff', 'workflow', 'stage-transition'],
    related: Array.isArray(fmX['related']) ? fmX['related'] : [],
    details: {
      manifest_schema: KXM_MANIFEST_SCHEMA,
      workflow_run_id: m.workflowRunId,
      handoff_id: m.handoffId,
      intent: m.intent,
      handoff_status: m.status,
      rework_of: m.reworkOf ?? null,
    },
  };
  const src = m.source;
  const sourceParts = [
    `role ${code(src.role)}`,
    `agent ${code(src.agentId)}`,
    `harness ${code(src.harness)}`,
  ];
  if (src.model !== undefined) sourceParts.push(`model ${code(src.model)}`);
  sourceParts.push(`step ${code(src.stepId)}`, `attempt ${code(src.attemptId)}`);
  const witnessCommand = c.checks?.[0]?.command ?? o.witnesses[0]?.command;
  const branch = c.anchors?.branch ?? o.branch;
  const lines: string[] = [
    writeFrontMatter(fm),
    '',
    `# Handoff: ${m.source.role} to ${m.target.role}`,
    '',
    '## Stage transition',
    '',
    `- **Workflow run ID:** ${code(m.workflowRunId)}`,
    `- **Task ID:** ${code(m.taskId)}`,
    `- **Source:** ${sourceParts.join(', ')}`,
    `- **Target:** role ${code(m.target.role)}, permission ${code(m.target.permission)}`,
    `- **Intent:** ${code(m.intent)}`,
    `- **Rework of:** ${typeof m.reworkOf === 'string' ? code(m.reworkOf) : 'none'}`,
    '',
    '## Repository anchors',
    '',
    `- **Base commit:** ${code(m.baseCommit)}`,
    ...(m.candidateTreeHash === undefined
      ? []
      : [`- **Candidate tree hash:** ${code(m.candidateTreeHash)}`]),
    ...(branch === undefined ? [] : [`- **Branch:** ${code(branch)}`]),
    '',
    '## Deliverables',
    '',
    ...refList('Patches', m.deliverables.patches),
    ...refList('Reports', m.deliverables.reports),
    ...(m.deliverables.artifacts.length === 0
      ? ['- **Artifacts:** none']
      : m.deliverables.artifacts.length === 1
        ? [
            `- **Artifacts:** ${code(m.deliverables.artifacts[0]?.name ?? '')}: ${code(m.deliverables.artifacts[0]?.artifactRef ?? '')}`,
          ]
        : [
            '- **Artifacts:**',
            ...m.deliverables.artifacts.map((a) => `  - ${code(a.name)}: ${code(a.artifactRef)}`),
          ]),
    '',
    '## Verification evidence',
    '',
    ...(witnessCommand === undefined ? [] : [`- **Witness command:** ${code(witnessCommand)}`]),
    `- **Witness exit code:** ${code(String(m.verificationEvidence.witnessExitCode))}`,
    `- **Witness passed:** ${code(String(m.verificationEvidence.witnessPassed))}`,
    ...verdictLines(m.verificationEvidence.criticVerdicts),
    '',
    '## Transferred context',
    '',
    ...bulletList(
      'Settled decisions',
      (c.decisions ?? []).map((d) => (d.reason === undefined ? d.text : `${d.text} (${d.reason})`)),
    ),
    ...bulletList('Assumptions', c.assumptions ?? []),
    ...bulletList('Open questions', m.openQuestions ?? []),
    ...(m.suggestedNextStep === undefined
      ? []
      : [
          `- **Suggested next step:** ${[
            ...(m.suggestedNextStep.stepId === undefined
              ? []
              : [`step ${code(m.suggestedNextStep.stepId)}`]),
            ...(m.suggestedNextStep.action === undefined
              ? []
              : [`action ${code(m.suggestedNextStep.action)}`]),
          ].join(', ')}`,
        ]),
    '',
  ];
  if (c.decisions?.some((d) => d.reason !== undefined))
    losses.push('claims.decisions[].reason (folded into the text)');
  if (x['docUnmapped'] !== undefined) losses.push('claims.extra.docUnmapped');
  if (x['docText'] !== undefined || x['docPreamble'] !== undefined)
    losses.push('claims.extra.docText');
  return { bytes: encoder.encode(lines.join('\n')), losses };
}

function refList(label: string, refs: readonly string[]): string[] {
  if (refs.length === 0) return [`- **${label}:** none`];
  if (refs.length === 1) return [`- **${label}:** ${code(refs[0] ?? '')}`];
  return [`- **${label}:**`, ...refs.map((r) => `  - ${code(r)}`)];
}

function verdictLines(
  verdicts: readonly { critic: string; verdict: string; summary?: string | undefined }[],
): string[] {
  const one = (v: (typeof verdicts)[number]): string =>
    `${code(v.critic)}: ${code(v.verdict)}${v.summary === undefined ? '' : `, ${oneLine(v.summary)}`}`;
  if (verdicts.length === 0) return ['- **Critic verdicts:** none'];
  if (verdicts.length === 1)
    return [`- **Critic verdicts:** ${one(verdicts[0] as (typeof verdicts)[number])}`];
  return ['- **Critic verdicts:**', ...verdicts.map((v) => `  - ${one(v)}`)];
}

/** The KXM format module: parse/detect both shapes; `emit` writes the JSON manifest. */
export const kxm: FormatModule = {
  name: 'kxm',
  detect: detectKxm,
  parse: parseKxm,
  emit: emitKxm,
};

// ---------------------------------------------------------------------------------------------
// Lifecycle
// ---------------------------------------------------------------------------------------------

export type LifecycleAction = 'accept' | 'reject' | 'supersede';
const ACTION_TO_STATUS: Record<LifecycleAction, KxmLifecycleStatus> = {
  accept: 'accepted',
  reject: 'rejected',
  supersede: 'superseded',
};
const ALLOWED_FROM: Record<KxmLifecycleStatus, readonly KxmLifecycleStatus[]> = {
  accepted: ['pending'],
  rejected: ['pending'],
  superseded: ['pending', 'accepted'],
  pending: [],
};

function isLifecycle(s: string): s is KxmLifecycleStatus {
  return (KXM_LIFECYCLE as readonly string[]).includes(s);
}

/** The rule, without throwing: a Problem when `from` may not move to `to`. */
export function checkLifecycleTransition(
  from: string,
  to: KxmLifecycleStatus,
): Problem | undefined {
  if (isLifecycle(from) && ALLOWED_FROM[to].includes(from)) return undefined;
  return {
    path: 'claims.status',
    message: `a handoff in status ${describe(from)} cannot become ${to}`,
    expected:
      ALLOWED_FROM[to].length === 0
        ? `no transition into ${to}`
        : `status ${ALLOWED_FROM[to].join(' or ')}`,
    got: from,
  };
}

/**
 * The claims of the record that performs a lifecycle step on `previous` (append-only: the old
 * record is never changed). `previousId` is the id of `previous`, linked from
 * `claims.extra.lifecycle.of`. Throws LedgerError INVALID_INPUT with the Problem when the rule
 * forbids the step (only pending → accepted | rejected; pending | accepted → superseded).
 */
export function nextLifecycleClaims(
  previous: LedgerRecord,
  action: LifecycleAction,
  by?: string,
  previousId?: string,
): Claims {
  const to = ACTION_TO_STATUS[action];
  const problem = checkLifecycleTransition(previous.claims.status, to);
  if (problem !== undefined) {
    throw new LedgerError(
      'INVALID_INPUT',
      `cannot ${action} a handoff in status ${previous.claims.status}`,
      {
        problems: [problem],
        hint: 'only pending handoffs can be accepted or rejected; pending or accepted ones can be superseded',
      },
    );
  }
  const p = previous.claims;
  const prevExtra = previous.format === 'kxm' ? (p.extra ?? {}) : {};
  const lifecycle: Record<string, Json> = { action, from: p.status, to };
  if (previousId !== undefined) lifecycle['of'] = previousId;
  if (by !== undefined) lifecycle['by'] = by;
  const extra: Record<string, unknown> = { ...prevExtra, lifecycle };
  return compact({
    status: to,
    task: p.task,
    run: p.run,
    attempt: p.attempt,
    intent: p.intent,
    reworkOf: p.reworkOf,
    summary: `${to} ${previousId ?? 'the previous record'}${by === undefined ? '' : ` by ${by}`}`,
    anchors: p.anchors,
    extra,
  });
}

export interface LifecycleState {
  /** The state after the last allowed step; undefined when the chain is empty or never had one. */
  state: KxmLifecycleStatus | undefined;
  /** Steps the rule forbids (they are ignored when deriving the state), by chain index. */
  problems: Problem[];
}

/** Derives a handoff's current lifecycle state from its chain of records, oldest first. */
export function currentState(records: readonly LedgerRecord[]): LifecycleState {
  let state: KxmLifecycleStatus | undefined;
  const problems: Problem[] = [];
  records.forEach((r, i) => {
    const s = r.claims.status;
    if (!isLifecycle(s)) {
      problems.push({
        path: `records[${i}].claims.status`,
        message: 'not a KXM lifecycle status',
        expected: `one of ${KXM_LIFECYCLE.join(', ')}`,
        got: s,
      });
      return;
    }
    if (state === undefined || s === state) {
      state = s;
      return;
    }
    const p = checkLifecycleTransition(state, s);
    if (p === undefined) state = s;
    else problems.push({ ...p, path: `records[${i}].claims.status` });
  });
  return { state, problems };
}

export const kxmLifecycle = {
  nextLifecycleClaims,
  currentState,
  checkLifecycleTransition,
} as const;
