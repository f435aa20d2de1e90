/**
 * The ledger's own JSON handoff: exactly the agent-authored `claims` object of the record
 * model, in the ledger's status vocabulary. A field that only `ledger` may author is refused
 * with a message saying it is observed, not claimed.
 */
import type { Problem } from '../../model/errors.js';
import {
  Claims,
  LEDGER_AUTHORED_FIELDS,
  STATUSES,
  isStatus,
  type LedgerRecord,
} from '../../model/record.js';
import { OWN_READER_REVISION, ownStatusOf, rederiveOwn } from '../../model/own-format.js';
import type { EmitContext, Emitted, FormatModule, ParseResult, Sniff } from '../contract.js';
import { isPlainObject, readJson } from '../kit/json.js';
import { observedLosses, uniqueLosses } from '../kit/losses.js';
import { issuesToProblems, refuse } from '../kit/problems.js';
import { encodeText } from '../kit/text.js';

const LEDGER_FIELDS: ReadonlySet<string> = new Set(LEDGER_AUTHORED_FIELDS);

function detect(input: Sniff) {
  const value = input.json();
  if (!isPlainObject(value)) return { score: 0, signals: [] };
  const status = value['status'];
  if (typeof status !== 'string' || !isStatus(status)) return { score: 0, signals: [] };
  const signals = [`status ${status} is the ledger's own vocabulary`];
  const foreign = ['verification', 'recommended_next_stage', 'schema', 'workspaceId'].filter((k) =>
    Object.hasOwn(value, k),
  );
  if (foreign.length > 0) {
    signals.push(`but it has ${foreign.join(', ')}, which the ledger's shape has not`);
    return { score: 0.3, signals };
  }
  return { score: 0.9, signals };
}

function statusProblem(status: string): Problem {
  return {
    path: 'status',
    message: 'unknown status',
    expected: STATUSES.join(' | '),
    got: status,
  };
}

function parse(bytes: Uint8Array): ParseResult {
  const read = readJson(bytes, 'a JSON object of claims');
  if (!read.ok) return read;
  const value = read.value;
  if (!isPlainObject(value)) {
    return {
      ok: false,
      problems: [{ path: '', message: 'a handoff must be a JSON object', expected: 'object' }],
    };
  }
  const problems: Problem[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (LEDGER_FIELDS.has(key)) {
      problems.push({
        path: key,
        message: `"${key}" is authored by ledger, not by the agent: it is observed at record time`,
        expected: 'only agent-authored fields (status, summary, decisions, findings, …)',
        got: key,
      });
    } else rest[key] = field;
  }
  const result = Claims.safeParse(rest);
  if (!result.success) problems.push(...issuesToProblems(result.error.issues, rest));
  else if (!isStatus(result.data.status)) problems.push(statusProblem(result.data.status));
  if (problems.length > 0 || !result.success || !isStatus(result.data.status))
    return { ok: false, problems };
  return { ok: true, handoff: { claims: result.data, status: result.data.status, reasons: [] } };
}

function emit(record: LedgerRecord, context: EmitContext): Emitted {
  const own = record.format === 'ledger';
  const effective = record.observed.effectiveStatus;
  const losses: string[] = [];
  // Another format's status word means nothing here: the ledger's verdict travels instead.
  const status = own && isStatus(record.claims.status) ? record.claims.status : effective;
  if (context.claimedMeaning !== status)
    losses.push(
      `claims.status (${record.claims.status === '' ? 'no status' : record.claims.status} is written as ${status})`,
    );
  if (status !== effective)
    losses.push(
      `observed.effectiveStatus (${effective}: lowered by what ledger observed, which a handoff cannot carry)`,
    );
  losses.push(...observedLosses(record));
  const text = `${JSON.stringify({ ...record.claims, status }, null, 2)}\n`;
  return { bytes: encodeText(text), losses: uniqueLosses(losses) };
}

export const ledger: FormatModule = {
  name: 'ledger',
  title: "ledger's own JSON claims",
  readerRevision: OWN_READER_REVISION,
  detect,
  parse,
  fromFlags({ status }) {
    if (status === undefined)
      return refuse({
        path: 'status',
        message: 'a status is required when no handoff file is given',
        expected: STATUSES.join(' | '),
      });
    if (!isStatus(status)) return refuse(statusProblem(status));
    return { ok: true, handoff: { claims: { status }, status, reasons: [] } };
  },
  rederive: rederiveOwn,
  statusOf: ownStatusOf,
  wordFor: (status) => status,
  reasonCodes: {},
  emitters: [{ name: 'ledger', title: "the ledger's JSON claims", emit }],
};
