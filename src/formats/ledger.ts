/**
 * The ledger's own JSON handoff: exactly the agent-authored `claims` object of the record
 * model. Fields that only `ledger` may author are refused with a message saying so.
 */
import type { Problem } from '../model/errors.js';
import { Claims, LEDGER_AUTHORED_FIELDS, STATUSES, type Status } from '../model/record.js';
import { parseJson } from './json.js';
import { issuesToProblems } from './markdown.js';
import type { FormatModule, ParseResult } from './types.js';

const LEDGER_FIELDS = new Set<string>(LEDGER_AUTHORED_FIELDS);

export function isLedgerStatus(value: string): value is Status {
  return (STATUSES as readonly string[]).includes(value);
}

export const ledger: FormatModule = {
  name: 'ledger',

  detect(bytes) {
    const parsed = parseJson(bytes.subarray(0, 1 << 20));
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object') return 0;
    const value = parsed.value as Record<string, unknown>;
    if (typeof value['status'] === 'string' && isLedgerStatus(value['status'])) {
      return 'verification' in value || 'recommended_next_stage' in value ? 0.3 : 0.9;
    }
    return 0;
  },

  parse(bytes): ParseResult {
    const parsed = parseJson(bytes);
    if (!parsed.ok) return parsed;
    const value = parsed.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
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
        });
      } else {
        rest[key] = field;
      }
    }
    const result = Claims.safeParse(rest);
    if (!result.success) problems.push(...issuesToProblems(result.error.issues, rest));
    if (result.success && !isLedgerStatus(result.data.status)) {
      problems.push({
        path: 'status',
        message: 'unknown status',
        expected: STATUSES.join(' | '),
        got: result.data.status,
      });
    }
    if (problems.length > 0 || !result.success) return { ok: false, problems };
    return {
      ok: true,
      handoff: { claims: result.data, status: result.data.status as Status, reasons: [] },
    };
  },

  emit(record) {
    const text = `${JSON.stringify(record.claims, null, 2)}\n`;
    return {
      bytes: new TextEncoder().encode(text),
      losses: ['observed (ledger-authored; see ledger show --json)'],
    };
  },
};
