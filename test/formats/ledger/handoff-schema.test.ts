/**
 * `ledger schema handoff`: the JSON Schema of the ledger's own handoff, derived from the zod
 * schema the format parses with. Every field is described, its example is a handoff the format
 * accepts, and the schema and the parser agree on what is a handoff and what is not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { formatModule } from '../../../src/formats/index.js';
import { HANDOFF_EXAMPLE, handoffJsonSchema } from '../../../src/formats/ledger/schema.js';
import { Claims } from '../../../src/model/record.js';
import { cleanup, gitdir, PROJECT_ROOT, runCli } from '../../helpers/git.js';

afterAll(cleanup);

const schema = handoffJsonSchema();
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
const parse = (value: unknown) =>
  formatModule('ledger').parse(new TextEncoder().encode(JSON.stringify(value)), {} as never);

/** Every property at every depth, with its path. */
function properties(node: Record<string, any>, path = ''): [string, Record<string, any>][] {
  const out: [string, Record<string, any>][] = [];
  for (const [key, child] of Object.entries<Record<string, any>>(node['properties'] ?? {})) {
    const at = path === '' ? key : `${path}.${key}`;
    out.push([at, child], ...properties(child, at));
    if (child['items']) out.push(...properties(child['items'], `${at}[]`));
  }
  return out;
}

describe('ledger schema handoff', () => {
  it('describes every field of the claims, at every depth, and requires only status', () => {
    expect(Object.keys(schema['properties'] as object).sort()).toEqual(
      Object.keys(Claims.shape).sort(),
    );
    const all = properties(schema);
    expect(all.length).toBeGreaterThan(40);
    const undescribed = all.filter(([, p]) => typeof p['description'] !== 'string');
    expect(undescribed.map(([path]) => path)).toEqual([]);
    expect(schema['required']).toEqual(['status']);
    expect(schema['additionalProperties']).toBe(false);
    expect((schema['properties'] as any).status.enum).toEqual([
      'success',
      'partial',
      'blocked',
      'failed',
    ]);
  });

  it('its example is a handoff the ledger format accepts and detects', () => {
    expect(schema['examples']).toEqual([HANDOFF_EXAMPLE]);
    expect(validate(HANDOFF_EXAMPLE), JSON.stringify(validate.errors)).toBe(true);
    expect(parse(HANDOFF_EXAMPLE)).toMatchObject({ ok: true, handoff: { status: 'success' } });
  });

  it('the schema and the parser agree on what is a handoff and what is not', () => {
    const accepted = [
      { status: 'blocked' },
      { status: 'partial', deferred: [{ category: 'tests', description: 'x' }], extra: { a: 1 } },
      { status: 'failed', checks: [{ result: 'failed', command: 'npm test', exitCode: 1 }] },
    ];
    const refused = [
      { status: 'done' },
      { summary: 'no status' },
      { status: 'success', effectiveStatus: 'success' },
      { status: 'success', surprise: true },
      { status: 'success', confidence: { value: 101 } },
      { status: 'success', artifacts: [{ path: 'a.ts', action: 'edited' }] },
      { status: 'success', findings: [{ severity: 'high' }] },
    ];
    for (const doc of accepted) {
      expect(validate(doc), JSON.stringify(doc)).toBe(true);
      expect(parse(doc).ok, JSON.stringify(doc)).toBe(true);
    }
    for (const doc of refused) {
      expect(validate(doc), JSON.stringify(doc)).toBe(false);
      expect(parse(doc).ok, JSON.stringify(doc)).toBe(false);
    }
  });

  it('ledger schema handoff prints it, as published in dist/schemas', async () => {
    const printed = await runCli(['schema', 'handoff'], gitdir());
    expect(printed.code).toBe(0);
    const json = JSON.parse(printed.stdout);
    expect(json).toEqual(
      JSON.parse(
        readFileSync(join(PROJECT_ROOT, 'dist', 'schemas', 'handoff.schema.json'), 'utf8'),
      ),
    );
    expect(json).toEqual(JSON.parse(JSON.stringify(schema)));
  });
});
