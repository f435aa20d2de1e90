/**
 * Every `--json` output a test sees is checked against the command's JSON Schema: the one
 * published in dist/schemas/ (what scripts validate against) and its closed form generated
 * from src/cli/json/ (which also catches a field that was added without a schema line).
 * `runCli` calls this for every run with `--json`, so the whole suite checks the promise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { OUTPUT_SCHEMAS, outputJsonSchema, schemaFileName } from '../../src/cli/json/index.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<string, { published: ValidateFunction; closed: ValidateFunction }>();

/**
 * The schema that applies to a run: the command's (its id is the longest run of leading words
 * that names one: `hook claude-code` → `hook:claude-code`), or the error shape otherwise.
 */
export function schemaNameFor(args: readonly string[]): string {
  const words: string[] = [];
  for (const a of args) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  for (let n = words.length; n > 0; n--) {
    const id = words.slice(0, n).join(':');
    if (id in OUTPUT_SCHEMAS) return id;
  }
  return 'error';
}

function validators(root: string, name: string) {
  let v = compiled.get(name);
  if (v === undefined) {
    const file = join(root, 'dist', 'schemas', schemaFileName(name));
    const published = JSON.parse(readFileSync(file, 'utf8')) as object;
    v = {
      published: ajv.compile(published),
      closed: ajv.compile(outputJsonSchema(name, { closed: true })),
    };
    compiled.set(name, v);
  }
  return v;
}

/** Problems with one `--json` output (empty: it parses and matches both schema forms). */
export function jsonOutputProblems(
  root: string,
  args: readonly string[],
  stdout: string,
): string[] {
  const name = schemaNameFor(args);
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch (error) {
    return [
      `ledger ${args.join(' ')}: stdout is not JSON (${(error as Error).message}): ${stdout.slice(0, 200)}`,
    ];
  }
  const { published, closed } = validators(root, name);
  const problems: string[] = [];
  for (const [form, validate] of [
    ['published', published],
    ['closed', closed],
  ] as const) {
    if (!validate(value)) {
      problems.push(
        `ledger ${args.join(' ')}: --json output does not match the ${form} schema "${name}": ` +
          ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 2000),
      );
    }
  }
  return problems;
}
