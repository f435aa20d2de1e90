/**
 * The JSON Schema of the ledger's own handoff (`ledger schema handoff`): the record model's
 * `Claims`, which is what `parse` checks, with `status` in the ledger's words and a description
 * on every field. The descriptions live here, keyed by field path, so the MCP `record` tool's
 * inputs say the same thing as the schema an agent writes its handoff by.
 */
import { z } from 'zod';
import { Claims, STATUSES } from '../../model/record.js';

/** What each status means; the one line every description of a status uses. */
export const STATUS_MEANINGS: Readonly<Record<(typeof STATUSES)[number], string>> = {
  success: 'the task is done as asked',
  partial: 'some of it is done, and the rest is listed (deferred, open questions)',
  blocked: 'could not go on without something from someone else',
  failed: 'tried and did not get it to work',
};

const statusLine = STATUSES.map((s) => `${s}: ${STATUS_MEANINGS[s]}`).join('; ');

/**
 * Field path (dots; `[]` for an array's items) → what it means. A field of `Claims` without a
 * line here fails the test that checks the schema describes every field.
 */
export const HANDOFF_FIELD_DESCRIPTIONS: Readonly<Record<string, string>> = {
  status: `Your status, in the ledger's words (${statusLine}). Ledger may record a lower one from what it observes; never a higher one.`,
  summary: 'What you did, in a few sentences.',
  task: 'The task or ticket this run worked on (an issue number, a ticket key).',
  run: 'An id of this run, when your system has one.',
  attempt: 'Which attempt at the task this is (1, 2…), when the task was tried before.',
  intent: 'What you ask of the reader: request_review, handoff, report…',
  reworkOf: 'The record id of the handoff this run reworks (sha256:…, or a unique prefix).',
  decisions: 'Choices you made that a reviewer should know about.',
  'decisions[].text': 'The decision.',
  'decisions[].reason': 'Why.',
  assumptions: 'What you took for granted without checking.',
  openQuestions: 'Questions you could not answer and someone should.',
  deferred: 'Work you left for later, on purpose.',
  'deferred[].category': 'What kind of work (tests, docs, refactor…).',
  'deferred[].description': 'What is left to do.',
  'deferred[].reason': 'Why it was left.',
  findings: 'Problems you found (in the code, the task, the environment).',
  'findings[].severity': 'How bad: critical, high, medium, low, info.',
  'findings[].summary': 'What the problem is.',
  'findings[].path': 'The file it is in, relative to the repository.',
  'findings[].line': 'The line it is on (1-based).',
  references: 'Places in the code a reader should look at.',
  'references[].path': 'A file, relative to the repository.',
  'references[].line': 'The first line (1-based).',
  'references[].endLine': 'The last line, for a range.',
  'references[].note': 'Why it matters.',
  'references[].unverified': 'True when you did not check the reference yourself.',
  confidence: 'How sure you are that the work is right.',
  'confidence.value': 'From 0 (a guess) to 100 (certain).',
  'confidence.justification': 'Why that much.',
  nextStep: 'What should happen next.',
  artifacts:
    'Files you say you changed. Ledger checks each against the trees it observes: a claim the trees contradict lowers the status.',
  'artifacts[].path': 'The file, relative to the repository.',
  'artifacts[].action': 'created, modified, deleted, or touched (changed, but you do not say how).',
  'artifacts[].sha256': 'The file’s sha256 (64 hex digits), when you state one.',
  'artifacts[].as':
    'Set by ledger when it mapped the path you wrote (absolute → repository); leave it out.',
  checks:
    'Checks you ran (tests, lint, build). With a command, a reviewer can re-run it (ledger verify --rerun).',
  'checks[].command': 'The command, exactly as you ran it.',
  'checks[].result': 'passed, failed, or skipped.',
  'checks[].exitCode': 'Its exit code.',
  'checks[].details': 'What it printed that matters (a count, the failing test).',
  insights: 'What you learned that the next agent should know.',
  'insights[].id': 'A short id of the insight, unique within the handoff.',
  'insights[].category': 'What it is about (codebase, tooling, process…).',
  'insights[].content': 'The insight.',
  'insights[].source': 'Where it came from (a file, a command, a person).',
  anchors:
    'Commits and trees you say you worked from; ledger checks them against what it observes.',
  'anchors.baseCommit': 'The commit you started from.',
  'anchors.candidateTree': 'The git tree id of your result.',
  'anchors.branch': 'The branch you worked on.',
  extra: 'Anything else, under your own keys (plain JSON values): kept, not interpreted.',
};

/** The ledger-format handoff: `Claims` with the status in the ledger's own vocabulary. */
export const LedgerHandoff = Claims.extend({ status: z.enum(STATUSES) });

export const HANDOFF_EXAMPLE = {
  status: 'success',
  summary: 'Added a transliteration helper and its tests.',
  task: 'ISSUE-42',
  artifacts: [
    { path: 'src/translit.ts', action: 'created' },
    { path: 'src/translit.test.ts', action: 'created' },
  ],
  checks: [{ command: 'npm test', result: 'passed', exitCode: 0 }],
  decisions: [{ text: 'Kept the ASCII fallback', reason: 'the CLI prints to old terminals' }],
  deferred: [{ category: 'docs', description: 'README section', reason: 'waiting on naming' }],
  confidence: { value: 80, justification: 'tests cover the tables, not every script' },
} as const;

/** JSON Schema (draft 2020-12) of the ledger-format handoff, every field described. */
export function handoffJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(LedgerHandoff, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  describeFields(schema, '');
  return {
    ...schema,
    title: 'ledger handoff (format ledger)',
    description:
      'The JSON an agent writes as its handoff in the ledger’s own format (ledger record --from FILE, or the MCP record tool’s handoff). Only status is required; unknown keys are refused, and fields only ledger may author (recordedAt, effectiveStatus, baseCommit…) are refused as observed, not claimed.',
    examples: [HANDOFF_EXAMPLE],
  };
}

function describeFields(node: Record<string, unknown>, path: string): void {
  const properties = node['properties'] as Record<string, Record<string, unknown>> | undefined;
  for (const [key, child] of Object.entries(properties ?? {})) {
    const at = path === '' ? key : `${path}.${key}`;
    const description = HANDOFF_FIELD_DESCRIPTIONS[at];
    if (description !== undefined) child['description'] = description;
    describeFields(child, at);
    const items = child['items'] as Record<string, unknown> | undefined;
    if (items !== undefined) describeFields(items, `${at}[]`);
  }
}
