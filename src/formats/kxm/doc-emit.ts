/**
 * Any record as the KXM Markdown view (`kxm.doc.v1` handoff page, the seed template's
 * sections): the manifest's fields plus what only the view can hold (witness command, branch,
 * settled decisions, assumptions, summary).
 */
import type { LedgerRecord } from '../../model/record.js';
import type { EmitContext, Emitted } from '../contract.js';
import { writeFrontMatter, type FrontMap } from '../kit/front-matter.js';
import { emitted } from '../kit/losses.js';
import { code, oneLine } from '../kit/markdown.js';
import { isObject } from '../kit/values.js';
import { parseDocText } from './doc-parse.js';
import { isPlaceholder } from './doc-bullets.js';
import {
  carriedBy,
  checksLoss,
  deliverablesLoss,
  kxmExtra,
  toKxmManifest,
} from './manifest-emit.js';
import { KXM_DOC_SCHEMA, KXM_MANIFEST_SCHEMA } from './schema.js';

function bulletList(label: string, values: readonly string[]): string[] {
  if (values.length === 0) return [`- **${label}:** none`];
  if (values.length === 1) return [`- **${label}:** ${oneLine(values[0] ?? '')}`];
  return [`- **${label}:**`, ...values.map((v) => `  - ${oneLine(v)}`)];
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
  if (verdicts.length === 1) return [`- **Critic verdicts:** ${one(verdicts[0]!)}`];
  return ['- **Critic verdicts:**', ...verdicts.map((v) => `  - ${one(v)}`)];
}

const VIEW_CARRIES =
  /^(claims\.(decisions|assumptions|summary|anchors\.branch)|observed\.branch)|witness command/;

export function emitKxmDoc(record: LedgerRecord, context: EmitContext): Emitted {
  const { manifest: m, losses: manifestLosses, witnessFrom } = toKxmManifest(record, context);
  const c = record.claims;
  const o = record.observed;
  const x = kxmExtra(record);
  const losses = manifestLosses.filter((l) => !VIEW_CARRIES.test(l));
  const fmX: FrontMap = isObject(x['frontMatter']) ? (x['frontMatter'] as FrontMap) : {};
  const keep = (k: string, fallback: string): string =>
    typeof fmX[k] === 'string' ? (fmX[k] as string) : fallback;
  const fm: FrontMap = {
    schema: KXM_DOC_SCHEMA,
    id: keep('id', m.handoffId),
    type: 'handoff',
    title: keep('title', `Handoff ${m.handoffId}`),
    project: keep('project', 'kxm'),
    status: keep(
      'status',
      m.status === 'superseded' ? 'superseded' : m.status === 'accepted' ? 'approved' : 'in_review',
    ),
    owner: keep('owner', `@${m.source.role}`),
    created: keep('created', m.createdAt.slice(0, 10)),
    updated: keep('updated', o.recordedAt.slice(0, 10)),
    authority: keep('authority', 'evidence'),
    confidence: keep('confidence', 'claimed'),
    ...(c.summary === undefined ? {} : { summary: c.summary }),
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
  const ve = m.verificationEvidence;
  losses.push(...deliverablesLoss(record, m.deliverables, losses, (ref) => !isPlaceholder(ref)));
  losses.push(
    ...checksLoss(
      record,
      [
        {
          command: witnessCommand,
          result: ve.witnessPassed ? 'passed' : 'failed',
          exitCode: ve.witnessExitCode,
        },
      ],
      witnessFrom.replace(
        'the manifest has no witness command; the kxm-doc view does',
        'KXM carries one witness',
      ),
    ),
  );
  const branch = c.anchors?.branch ?? o.branch;
  if (c.anchors?.branch === undefined && branch !== undefined)
    losses.push('observed.branch (written as the claimed branch)');
  const next = m.suggestedNextStep;
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
    ...(next === undefined
      ? []
      : [
          `- **Suggested next step:** ${[
            ...(next.stepId === undefined ? [] : [`step ${code(next.stepId)}`]),
            ...(next.action === undefined ? [] : [`action ${code(next.action)}`]),
          ].join(', ')}`,
        ]),
    '',
  ];
  const text = lines.join('\n');
  if (c.decisions?.some((d) => d.reason !== undefined))
    losses.push('claims.decisions[].reason (folded into the text)');
  if (x['docUnmapped'] !== undefined) losses.push('claims.extra.docUnmapped');
  if (x['docText'] !== undefined || x['docPreamble'] !== undefined)
    losses.push('claims.extra.docText');
  // Read the page back: list items are one line each, so a multi-line entry cannot come back whole.
  const folded = (c.decisions ?? []).map((d) =>
    d.reason === undefined ? d.text : `${d.text} (${d.reason})`,
  );
  return emitted(record, text, losses, {
    carries: carriedBy('doc', record),
    own: false,
    keeps: ['anchors', 'branch'],
    parse: (bytes) => parseDocText(new TextDecoder().decode(bytes)),
    rules: "KXM's rules",
    fields: ['summary', 'nextStep', 'assumptions', 'openQuestions'],
    more: (back) =>
      JSON.stringify(back.claims.decisions?.map((d) => d.text) ?? []) === JSON.stringify(folded)
        ? []
        : ['claims.decisions (an entry does not read back as itself)'],
  });
}
