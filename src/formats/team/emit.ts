/**
 * Any record as a team-orchestration input: a record that came in as an insight, the insight
 * queue, a progress file or a feature list goes back to that JSON; any other becomes a
 * subagent-contract result (Status, Summary, Findings, Key References, Confidence, Next Steps,
 * insight markers). What the contract has no place for is named in the losses.
 */
import type { LedgerRecord } from '../../model/record.js';
import type { EmitContext, Emitted } from '../contract.js';
import type { ClaimField } from '../kit/claims.js';
import { emitted, itemLosses, ownExtra } from '../kit/losses.js';
import { code, headingOf, renderTable } from '../kit/markdown.js';
import { isObject, str } from '../kit/values.js';
import { extractInsights } from './insights.js';
import { parseTeam } from './parse.js';
import { findingsIn, referencesIn } from './places.js';
import { INSIGHT_CATEGORIES, RESULT_VOCABULARY, keyOf } from './vocabulary.js';

const INSIGHT_ORDER = [
  'id',
  'timestamp',
  'category',
  'content',
  'source',
  'status',
  'contentHash',
  'workspaceId',
];
const PROGRESS_ORDER = [
  'workspaceId',
  'project',
  'started',
  'lastUpdated',
  'status',
  'currentTask',
  'currentPhase',
  'sessions',
  'log',
  'resumptionContext',
];

function ordered(obj: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of order) if (k in obj) out[k] = obj[k];
  for (const [k, v] of Object.entries(obj)) if (!(k in out)) out[k] = v;
  return out;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The JSON file a team record came from, rebuilt from its fields and claims. */
function emitFile(
  record: LedgerRecord,
  extra: Record<string, unknown>,
  losses: string[],
): string | undefined {
  const c = record.claims;
  const fields = isObject(extra['fields']) ? extra['fields'] : {};
  const status = c.status === '' ? {} : { status: c.status };
  switch (extra['input']) {
    case 'insight': {
      const ins = c.insights?.[0];
      if ((c.insights?.length ?? 0) > 1) losses.push('claims.insights (an insight file holds one)');
      return json(
        ordered(
          {
            ...fields,
            ...(ins ? { id: ins.id, category: ins.category, content: ins.content } : {}),
            ...(ins?.source === undefined ? {} : { source: ins.source }),
            ...status,
          },
          INSIGHT_ORDER,
        ),
      );
    }
    case 'insights': {
      const entries = Array.isArray(extra['entries']) ? extra['entries'] : [];
      const insights = (c.insights ?? []).map((ins, i) =>
        ordered(
          {
            ...(isObject(entries[i]) ? entries[i] : {}),
            id: ins.id,
            category: ins.category,
            content: ins.content,
            ...(ins.source === undefined ? {} : { source: ins.source }),
          },
          INSIGHT_ORDER,
        ),
      );
      return json({ ...fields, insights });
    }
    case 'progress':
      return json(
        ordered(
          { ...fields, ...status, ...(c.summary === undefined ? {} : { currentTask: c.summary }) },
          PROGRESS_ORDER,
        ),
      );
    case 'features':
      return json(fields);
    default:
      return undefined;
  }
}

function location(path: string, line?: number, endLine?: number): string {
  return code(
    `${path}${line === undefined ? '' : `:${line}${endLine === undefined ? '' : `-${endLine}`}`}`,
  );
}

/** The universal result structure of the subagent contract, for a record of another format. */
function emitResult(record: LedgerRecord, word: string, losses: string[]): string {
  const c = record.claims;
  const out: string[] = [
    '## Agent Result',
    `### Status\n${word}`,
    `### Summary\n${c.summary ?? ''}`.trimEnd(),
  ];
  const findings = c.findings ?? [];
  const findingRows = findings.map((f) => [
    f.severity,
    f.summary,
    f.path === undefined ? '' : location(f.path, f.line),
  ]);
  const findingTable = renderTable(['Severity', 'Summary', 'File:Line'], findingRows);
  losses.push(
    ...itemLosses(
      'findings',
      findings,
      findingsIn(findingTable, []),
      'does not read back from a findings table row',
    ),
  );
  out.push(findings.length === 0 ? '### Findings\nNone' : `### Findings\n${findingTable}`);
  const refs = c.references ?? [];
  const refTable = renderTable(
    ['Item', 'Location', 'Relevance'],
    refs.map((r) => [
      r.note ?? '',
      `${location(r.path, r.line, r.endLine)}${r.unverified === true ? ' [UNVERIFIED]' : ''}`,
      '',
    ]),
  );
  // An [UNVERIFIED] mark reads back as `unverified: true`; no mark, as no field.
  const plain = refs.map((r) => ({ ...r, unverified: r.unverified === true ? true : undefined }));
  losses.push(
    ...itemLosses(
      'references',
      plain,
      referencesIn(refTable, []),
      'does not read back from a Key References row',
    ),
  );
  out.push(`### Key References\n${refTable}`);
  if (c.confidence) {
    const j = c.confidence.justification;
    out.push(`### Confidence\n${c.confidence.value}${j === undefined ? '' : ` - ${j}`}`);
  }
  if (c.nextStep !== undefined) out.push(`### Next Steps\n${c.nextStep}`);
  const insights = c.insights ?? [];
  insights.forEach((ins, i) => {
    if (!(INSIGHT_CATEGORIES as readonly string[]).includes(ins.category))
      losses.push(`claims.insights[${i}].category (${ins.category} has no marker)`);
  });
  const markers = insights.filter((i) =>
    (INSIGHT_CATEGORIES as readonly string[]).includes(i.category),
  );
  if (markers.length > 0)
    out.push(
      `### Insights\n${markers.map((i) => `${i.category.toUpperCase()}: ${i.content}`).join('\n\n')}`,
    );
  return `${out.join('\n\n')}\n`;
}

/** A result that came in as team's, laid out again as it was written. */
function emitOwnResult(record: LedgerRecord, extra: Record<string, unknown>, word: string): string {
  const c = record.claims;
  const out: string[] = [];
  if (typeof extra['preamble'] === 'string') out.push(extra['preamble']);
  const statusNotes = str(extra['statusNotes']);
  const statusBody = `${word}${typeof extra['statusDetail'] === 'string' ? ` ${extra['statusDetail']}` : ''}${statusNotes === undefined ? '' : `\n${statusNotes}`}`;
  const confidence = (): string => {
    const k = c.confidence;
    if (!k) return '';
    const sep = str(extra['confidenceSeparator']) ?? ' - ';
    return `${k.value}${k.justification === undefined ? '' : `${sep === '' ? ' - ' : sep}${k.justification}`}`;
  };
  for (const s of (Array.isArray(extra['sections']) ? extra['sections'] : []).filter(isObject)) {
    const heading = String(s['heading'] ?? '');
    const gap = s['gap'] === true ? '\n' : '';
    if (typeof s['body'] === 'string') {
      out.push(s['body'] === '' ? heading : `${heading}\n${gap}${s['body']}`);
      continue;
    }
    const k = keyOf(headingOf(heading)?.title ?? '');
    const inline = s['inline'] === true;
    let body = '';
    if (k?.key === 'status') body = inline ? (statusNotes ?? '') : statusBody;
    else if (k?.key === 'summary') body = inline ? '' : (c.summary ?? '');
    else if (k?.key === 'confidence') body = inline ? '' : confidence();
    else if (k?.key === 'next') body = inline ? '' : (c.nextStep ?? '');
    out.push(body === '' ? heading : `${heading}\n${gap}${body}`);
  }
  return `${out.join('\n\n')}\n`;
}

/** Insight markers are read from the whole text: exactly the record's must come back. */
function insightLosses(record: LedgerRecord, text: string): string[] {
  const found = extractInsights(text, new Date(record.observed.recordedAt));
  const want = (record.claims.insights ?? []).filter((i) =>
    (INSIGHT_CATEGORIES as readonly string[]).includes(i.category),
  );
  const same =
    found.length === want.length &&
    found.every((f, i) => f.category === want[i]?.category && f.content === want[i]?.content);
  return same
    ? []
    : ['claims.insights (the markers in this text do not read back as the same insights)'];
}

export function emitTeam(record: LedgerRecord, context: EmitContext): Emitted {
  const own = record.format === 'team';
  const c = record.claims;
  const extra = ownExtra(record, 'team');
  const losses: string[] = [];
  const file = own ? emitFile(record, extra, losses) : undefined;
  if (file !== undefined) {
    const carries: ClaimField[] =
      extra['input'] === 'progress'
        ? ['summary', 'nextStep', 'artifacts', 'references', 'decisions']
        : // An insight file's references are the places its content names: read back alike.
          ['insights', 'references'];
    return emitted(record, file, losses, {
      carries,
      own,
      parse: parseTeam,
      rules: "the toolkit's rules",
    });
  }
  const effective = record.observed.effectiveStatus;
  const word =
    own && RESULT_VOCABULARY.statusOf(c.status) !== undefined
      ? c.status
      : (RESULT_VOCABULARY.wordFor(effective) ?? 'PARTIAL');
  if (RESULT_VOCABULARY.statusOf(word) !== context.claimedMeaning)
    losses.push(
      `claims.status (${c.status === '' ? 'no status' : c.status} is written as ${word})`,
    );
  const ownResult = own && Array.isArray(extra['sections']);
  const text = ownResult ? emitOwnResult(record, extra, word) : emitResult(record, word, losses);
  losses.push(...insightLosses(record, text));
  return emitted(record, text, losses, {
    // Its own Findings, kept verbatim, carry its Files Created / Files Modified tables.
    carries: [
      'summary',
      'findings',
      'references',
      'confidence',
      'nextStep',
      'insights',
      ...(ownResult ? (['artifacts'] as const) : []),
    ],
    own,
    parse: parseTeam,
    rules: "the contract's rules",
    fields: ['summary', 'nextStep'],
  });
}
