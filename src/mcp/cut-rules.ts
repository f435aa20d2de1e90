/**
 * What an answer's JSON Schema lets `bound.ts` cut. The SDK's client validates a tool's
 * structured content against the tool's outputSchema and throws away an answer that fails, so a
 * cut answer must still match it: a list keeps its `minItems`, a text with a `pattern`, `enum`,
 * `const` or `format` stays whole, and members are dropped only from an object the schema does
 * not fix (a map such as `claims.extra`, free JSON the agent wrote) — never from one it
 * describes member by member. Branches (`anyOf`, `oneOf`) are read together, and each rule is
 * the strictest of them: the cutter does not know which branch an answer matches.
 * Pure: a JSON Schema in, rules out.
 */

type SchemaObject = { readonly [key: string]: unknown };

/** The schemas a value may match at one place in an answer; empty: nothing constrains it. */
export type SchemaSet = readonly SchemaObject[];

/** What may be cut at one place in an answer. */
export interface NodeRule {
  /** An object whose members the schema names (fixed); members are dropped only from others. */
  fixed: boolean;
  /** Members some branch requires: the minimal answer keeps them (minimal-answer.ts). */
  required: ReadonlySet<string>;
  /** The fewest items a list may be cut to. */
  minItems: number;
  /** Whether a text may be shortened (no pattern, enum, const or format holds it). */
  text: boolean;
}

const isObject = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The branches of a schema, flattened (`true` and `{}` are "anything"; `false` matches nothing). */
export function schemaSet(schema: unknown): SchemaSet {
  if (schema === true || schema === undefined) return [{}];
  if (!isObject(schema)) return [];
  const branches = [schema['anyOf'], schema['oneOf']].filter(Array.isArray) as unknown[][];
  if (branches.length === 0) return [schema];
  return branches.flat().flatMap(schemaSet);
}

/** The schemas a member named `key` may match, in any of the branches. */
export function memberSchemas(set: SchemaSet, key: string): SchemaSet {
  return set.flatMap((schema) => {
    const properties = schema['properties'];
    if (isObject(properties) && Object.hasOwn(properties, key)) return schemaSet(properties[key]);
    const additional = schema['additionalProperties'];
    return additional === false ? [] : schemaSet(additional);
  });
}

/** The schemas a list's items may match. */
export function itemSchemas(set: SchemaSet): SchemaSet {
  return set.flatMap((schema) => schemaSet(schema['items']));
}

/** The rule at a place whose schemas are `set`. */
export function ruleOf(set: SchemaSet): NodeRule {
  const required = new Set<string>();
  let fixed = false;
  let minItems = 0;
  let text = true;
  for (const schema of set) {
    if (isObject(schema['properties'])) fixed = true;
    if (Array.isArray(schema['required']))
      for (const name of schema['required']) if (typeof name === 'string') required.add(name);
    if (typeof schema['minItems'] === 'number') minItems = Math.max(minItems, schema['minItems']);
    if (['pattern', 'enum', 'const', 'format'].some((k) => k in schema)) text = false;
  }
  return { fixed, required, minItems, text };
}

/** A place in an answer: the schemas a value there may match, and the rule they make. */
export interface Place {
  readonly set: SchemaSet;
  readonly rule: NodeRule;
}

/**
 * The places below a place, each worked out once: a list's items share one, and so do a map's
 * members, so an answer of forty thousand items costs forty thousand look-ups, not forty
 * thousand walks of its schema.
 */
export function placesOf(schema: unknown): {
  root: Place;
  item(of: Place): Place;
  member(of: Place, name: string): Place;
} {
  const below = new WeakMap<Place, { item?: Place; any?: Place; named: Map<string, Place> }>();
  const place = (set: SchemaSet): Place => ({ set, rule: ruleOf(set) });
  const known = (of: Place) => {
    let entry = below.get(of);
    if (entry === undefined) below.set(of, (entry = { named: new Map() }));
    return entry;
  };
  return {
    root: place(schemaSet(schema)),
    item(of) {
      const entry = known(of);
      return (entry.item ??= place(itemSchemas(of.set)));
    },
    member(of, name) {
      const entry = known(of);
      // Without named members (a map, free JSON) every member is in the same place.
      if (!of.rule.fixed) return (entry.any ??= place(memberSchemas(of.set, name)));
      let found = entry.named.get(name);
      if (found === undefined) entry.named.set(name, (found = place(memberSchemas(of.set, name))));
      return found;
    },
  };
}
