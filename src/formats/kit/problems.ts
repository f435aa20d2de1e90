/**
 * zod issues to Problems, in one place: every issue located by its field path
 * (`verification[1].result`), with what was expected and what was got, one problem per unknown
 * key. Formats that need to say more about a particular unknown key (Mainark's
 * "Mainark-authored", the ledger's "observed, not claimed") pass `explainKey`.
 */
import type { z } from 'zod';
import type { Problem } from '../../model/errors.js';

export type FieldPath = readonly PropertyKey[];

/** `verification[1].result` from `['verification', 1, 'result']`; '' for the root. */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** The value at a path of a parsed input, own properties only. */
export function valueAt(root: unknown, path: FieldPath): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key))
      return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** A short, JSON-like rendering of a value for a problem's `got`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return '(missing)';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export interface IssueOptions {
  /** Prepended to every path (e.g. `['claims']`). */
  prefix?: FieldPath;
  /** A better message for an unknown key at this path; undefined keeps the generic one. */
  explainKey?: (path: FieldPath) => { message: string; expected: string } | undefined;
}

/** Every zod issue as a located Problem saying what was expected and what was got. */
export function issuesToProblems(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  options: IssueOptions = {},
): Problem[] {
  const prefix = options.prefix ?? [];
  const problems: Problem[] = [];
  for (const issue of issues) {
    const at = (path: FieldPath): string => formatPath([...prefix, ...path]);
    const got = valueAt(input, issue.path);
    const missing = got === undefined;
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          const path = [...issue.path, key];
          const explained = options.explainKey?.(path);
          problems.push({
            path: at(path),
            message: explained?.message ?? `unknown field "${key}"`,
            expected: explained?.expected ?? 'no such field',
            got: describeValue(valueAt(input, path)),
          });
        }
        break;
      case 'invalid_type':
        problems.push({
          path: at(issue.path),
          message: missing ? 'required field is missing' : `wrong type: expected ${issue.expected}`,
          expected: issue.expected === 'int' ? 'integer' : issue.expected,
          got: describeValue(got),
        });
        break;
      case 'invalid_value':
        problems.push({
          path: at(issue.path),
          message: missing ? 'required field is missing' : 'value is not one of the allowed values',
          expected:
            issue.values.length === 1
              ? JSON.stringify(issue.values[0])
              : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`,
          got: describeValue(got),
        });
        break;
      case 'invalid_format':
        problems.push({
          path: at(issue.path),
          message: `does not match ${issue.message}`,
          expected:
            'pattern' in issue && typeof issue.pattern === 'string'
              ? `pattern ${issue.pattern}`
              : issue.format,
          got: describeValue(got),
        });
        break;
      default:
        problems.push({
          path: at(issue.path),
          message: missing ? 'required field is missing' : issue.message,
          expected: issue.message,
          got: describeValue(got),
        });
    }
  }
  return problems;
}

/** A section that may appear once, found again (every format with sections refuses that). */
export function duplicateSection(path: string, title: string, line: number): Problem {
  return {
    path,
    message: `the ${title} section appears more than once`,
    expected: 'one section',
    got: `another at line ${line}`,
  };
}

/** A refusal with one problem. */
export function refuse(problem: Problem): { ok: false; problems: Problem[] } {
  return { ok: false, problems: [problem] };
}
