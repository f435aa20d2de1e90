/**
 * The structured-handoff fields, as the skill text defines them: six required fields, exact
 * enums, and the JSON shape with no other keys. Both the Markdown and the JSON shape are read
 * into `Shape` before the rules run, so that the rules cannot differ between them.
 */
import { z } from 'zod';
import { vocabulary } from '../kit/status.js';

export const STRUCTURED_STATUSES = ['completed', 'blocked', 'failed'] as const;
export const STRUCTURED_RESULTS = ['passed', 'failed', 'skipped'] as const;
export const STRUCTURED_SEVERITIES = ['block', 'warn', 'note'] as const;

/** The skill's status words; it has no partial: stopped before done is blocked. */
export const STRUCTURED_VOCABULARY = vocabulary(
  { completed: 'success', blocked: 'blocked', failed: 'failed' },
  { fallback: { partial: 'blocked' } },
);

/** The JSON shape, exactly as the skill text shows it: every key required, no others. */
export const StructuredJson = z.strictObject({
  status: z.enum(STRUCTURED_STATUSES),
  summary: z.string(),
  artifacts: z.array(z.string()),
  verification: z.array(
    z.strictObject({
      command: z.string().nullable(),
      result: z.enum(STRUCTURED_RESULTS),
      details: z.string(),
    }),
  ),
  findings: z.array(
    z.strictObject({
      severity: z.enum(STRUCTURED_SEVERITIES),
      summary: z.string(),
      path: z.string().nullable().optional(),
      line: z.number().int().positive().nullable().optional(),
    }),
  ),
  recommended_next_stage: z.string().nullable(),
});

/** Both shapes normalise to this. */
export interface Shape {
  status: string;
  summary: string;
  artifacts: string[];
  verification: { command: string | null; result: string; details: string | null }[];
  findings: { severity: string; summary: string; path: string | null; line: number | null }[];
  next: string | null;
}

/** Foreign severities, for a record from another format. */
export const SEVERITY_MAP: Readonly<Record<string, string>> = {
  block: 'block',
  blocker: 'block',
  critical: 'block',
  high: 'block',
  error: 'block',
  fail: 'block',
  warn: 'warn',
  warning: 'warn',
  important: 'warn',
  medium: 'warn',
  major: 'warn',
  note: 'note',
  minor: 'note',
  low: 'note',
  info: 'note',
  suggestion: 'note',
};
