/**
 * What the red team's round nine tests build (red-team-nine*.test.ts): the MaxsimCLI handoff
 * whose artifact notes the answer cutter never cut, and the largest call a tool's published
 * input schema accepts — its size in bytes, every character escaped the costliest way
 * (`\u0001`, six bytes), and the call itself, built only once its size is known to be one a
 * test can hold.
 */

/** A MaxsimCLI handoff with one artifact line per note (`- Created: src/fN.ts NOTE`). */
export function maxsimHandoff(notes: readonly string[]): string {
  return [
    '### Key Decisions',
    '- none',
    '',
    '### Artifacts',
    ...notes.map((note, i) => `- Created: src/f${i}.ts ${note}`),
    '',
    '### Status',
    'PASS',
    '',
    'Evidence:',
    '- Tests: ok',
    '',
    '### Deferred Items',
    'None',
    '',
  ].join('\n');
}

type Schema = { [key: string]: unknown };

/** The most bytes one character of a string takes in a client's JSON. */
export const ESCAPED = 6;

/** The costliest character: JSON writes it as `\u0001`. */
const COSTLY = '\u0001';

/** Bytes of the largest JSON value `schema` accepts (Infinity when it sets no bound). */
export function worstBytes(schema: Schema): number {
  const branches = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (branches) return Math.max(...branches.map(worstBytes));
  if (Array.isArray(schema['enum']))
    return Math.max(...schema['enum'].map((v) => JSON.stringify(v).length));
  if ('const' in schema) return JSON.stringify(schema['const']).length;
  switch (schema['type']) {
    case 'string':
      return typeof schema['maxLength'] === 'number' ? 2 + ESCAPED * schema['maxLength'] : Infinity;
    case 'array':
      return typeof schema['maxItems'] === 'number'
        ? 2 + schema['maxItems'] * (worstBytes(schema['items'] as Schema) + 1)
        : Infinity;
    case 'object': {
      if (schema['additionalProperties'] !== false) return Infinity;
      const properties = Object.entries((schema['properties'] ?? {}) as Record<string, Schema>);
      return properties.reduce(
        (total, [key, property]) => total + JSON.stringify(key).length + 2 + worstBytes(property),
        2,
      );
    }
    case 'boolean':
      return 5;
    case 'integer':
    case 'number':
      return 24;
    default:
      return Infinity;
  }
}

/** The largest value `schema` accepts, every text at its longest in the costliest character. */
export function worstValue(schema: Schema): unknown {
  const branches = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (branches) {
    const sizes = branches.map(worstBytes);
    return worstValue(branches[sizes.indexOf(Math.max(...sizes))]!);
  }
  if (Array.isArray(schema['enum'])) {
    const longest = (schema['enum'] as unknown[]).map((v) => JSON.stringify(v).length);
    return schema['enum'][longest.indexOf(Math.max(...longest))];
  }
  switch (schema['type']) {
    case 'string':
      return COSTLY.repeat(schema['maxLength'] as number);
    case 'array':
      return Array.from({ length: schema['maxItems'] as number }, () =>
        worstValue(schema['items'] as Schema),
      );
    case 'object':
      return Object.fromEntries(
        Object.entries((schema['properties'] ?? {}) as Record<string, Schema>).map(
          ([key, property]) => [key, worstValue(property)],
        ),
      );
    case 'boolean':
      return false;
    default:
      return typeof schema['maximum'] === 'number' ? schema['maximum'] : 0;
  }
}

/** The JSON-RPC request around a tool's arguments, as a client sends it (the largest id). */
export function callBytes(tool: string, argumentBytes: number): number {
  const around = JSON.stringify({
    jsonrpc: '2.0',
    id: 9007199254740991,
    method: 'tools/call',
    params: { name: tool, arguments: {} },
  });
  return around.length - 2 + argumentBytes + 1; // its newline too
}
