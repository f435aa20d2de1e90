/**
 * A small CDDL (RFC 8610) validator over the AST of the `cddl` package, written from the RFC
 * for spec/ledger.cddl and nothing from src/: the spec test must be able to disagree with the
 * code, so it shares none of it. Decoded CBOR comes in as cbor-x gives it (plain objects or
 * Maps for maps, Uint8Array for byte strings).
 *
 * Covered, as the spec uses them: rule references, type choices (`/`), maps with bareword keys,
 * optional members (`?`), group inclusion, `* tstr => type` wildcards, arrays with occurrences
 * (`*`, `+`, `n*m`), literals, integer ranges, the prelude's scalar types and the `.regexp`
 * and `.size` controls. Anything else in the AST throws, so a spec that grows a construct this
 * validator does not know fails loudly instead of passing unchecked.
 *
 * Maps are closed (RFC 8610 §3.5.1: a map matches only when every entry is matched by a
 * member); a key no member names is a mismatch unless a wildcard member takes it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, type Assignment, type Property, type PropertyType } from 'cddl';

export interface Mismatch {
  path: string;
  message: string;
}

type Rules = ReadonlyMap<string, Assignment>;

const TEXT_KEY_TYPES = new Set(['tstr', 'text']);

export class CddlSchema {
  private constructor(private readonly rules: Rules) {}

  /** Parses a CDDL file with the `cddl` package; every rule name must be unique. */
  static load(file: string): CddlSchema {
    const rules = new Map<string, Assignment>();
    for (const rule of parse(file)) {
      if (rules.has(rule.Name)) throw new Error(`${file}: rule ${rule.Name} defined twice`);
      rules.set(rule.Name, rule);
    }
    const schema = new CddlSchema(rules);
    schema.checkReferences();
    return schema;
  }

  /** CDDL given as text (the package parses files only, so it goes through a temp file). */
  static fromText(source: string): CddlSchema {
    const dir = mkdtempSync(join(tmpdir(), 'cddl-'));
    try {
      const file = join(dir, 'inline.cddl');
      writeFileSync(file, source);
      return CddlSchema.load(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  get ruleNames(): string[] {
    return [...this.rules.keys()];
  }

  /** Every mismatch of `value` against rule `name` (empty: it matches). */
  validate(name: string, value: unknown): Mismatch[] {
    return this.matchRule(name, value, '$');
  }

  private rule(name: string): Assignment {
    const rule = this.rules.get(name);
    if (rule === undefined) throw new Error(`CDDL: no rule named ${name}`);
    return rule;
  }

  /** A typo in a reference is an error in the spec, found before any value is checked. */
  private checkReferences(): void {
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const n of node) visit(n);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n['Type'] === 'group' && typeof n['Value'] === 'string') this.rule(n['Value']);
      for (const v of Object.values(n)) visit(v);
    };
    for (const rule of this.rules.values()) visit(rule);
  }

  private matchRule(name: string, value: unknown, path: string): Mismatch[] {
    const rule = this.rule(name);
    switch (rule.Type) {
      case 'variable':
        return this.matchType(rule.PropertyType, value, path);
      case 'group':
        return this.matchMap(rule.Properties, value, path, name);
      case 'array':
        return this.matchArray(rule.Values, value, path);
    }
  }

  /** A type or a choice of types: the first that matches wins (RFC 8610 §2.2.2). */
  private matchType(type: PropertyType | PropertyType[], value: unknown, path: string): Mismatch[] {
    const choices = Array.isArray(type) ? type : [type];
    let first: Mismatch[] | undefined;
    for (const choice of choices) {
      const result = this.matchOne(choice, value, path);
      if (result.length === 0) return [];
      first ??= result;
    }
    if (choices.length === 1) return first ?? [];
    return [
      {
        path,
        message: `matches none of ${choices.length} choices (first: ${first?.[0]?.message})`,
      },
    ];
  }

  private matchOne(type: PropertyType, value: unknown, path: string): Mismatch[] {
    if (typeof type === 'string') return matchNative(type, value, path);
    const t = type as unknown as Record<string, unknown>;
    const kind = t['Type'];
    if (typeof kind === 'string' && 'Operator' in t && !('Value' in t)) {
      // A prelude type with a control operator: `tstr .regexp "…"`, `tstr .size (0..9)`.
      const base = matchNative(kind, value, path);
      if (base.length > 0) return base;
      return this.control(t['Operator'] as { Type: string; Value: unknown }, value, path);
    }
    if ('Operator' in t && t['Operator'] !== undefined)
      throw new Error(`CDDL: a control on ${JSON.stringify(t['Value'])} is not supported`);
    switch (kind) {
      case 'literal':
        return Object.is(t['Value'], value)
          ? []
          : [{ path, message: `expected ${JSON.stringify(t['Value'])}, got ${show(value)}` }];
      case 'group':
        if (typeof t['Value'] === 'string') return this.matchRule(t['Value'], value, path);
        if (t['Name'] === '' && Array.isArray(t['Properties']))
          return this.matchMap(t['Properties'] as Property[], value, path, 'map');
        break;
      case 'array':
        if (typeof t['Value'] !== 'string' && Array.isArray(t['Values']))
          return this.matchArray(t['Values'] as Property[], value, path);
        break;
      case 'range':
        return matchRange(t['Value'] as RangeValue, value, path);
    }
    throw new Error(`CDDL: type ${JSON.stringify(type).slice(0, 200)} is not supported`);
  }

  private control(op: { Type: string; Value: unknown }, value: unknown, path: string): Mismatch[] {
    const arg = op.Value as Record<string, unknown>;
    if (op.Type === 'regexp') {
      // XSD regular expressions are anchored at both ends (RFC 8610 §3.8.3).
      const re = new RegExp(`^(?:${String(arg['Value'])})$`, 'u');
      return re.test(value as string)
        ? []
        : [{ path, message: `${show(value)} does not match /${String(arg['Value'])}/` }];
    }
    if (op.Type === 'size') {
      // For text and byte strings, .size counts bytes (RFC 8610 §3.8.1).
      const size =
        typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : (value as Uint8Array).length;
      if (arg['Type'] === 'range')
        return matchRange(arg['Value'] as RangeValue, size, `${path}.size`);
      if (arg['Type'] === 'literal')
        return size === arg['Value']
          ? []
          : [{ path, message: `size ${size}, expected ${String(arg['Value'])}` }];
    }
    throw new Error(`CDDL: control .${op.Type} is not supported`);
  }

  /** Group inclusion spliced in: a member with no name whose type is a group rule. */
  private members(properties: readonly (Property | Property[])[], seen: string[]): Property[] {
    const out: Property[] = [];
    for (const p of properties) {
      if (Array.isArray(p)) throw new Error('CDDL: group choices (//) are not supported');
      const ref = only(p.Type);
      if (p.Name === '' && isRef(ref)) {
        const rule = this.rule(ref.Value);
        if (rule.Type !== 'group')
          throw new Error(`CDDL: ${ref.Value} is included but not a group`);
        if (p.Occurrence.n !== 1 || p.Occurrence.m !== 1)
          throw new Error(`CDDL: an optional group inclusion (${ref.Value}) is not supported`);
        if (seen.includes(ref.Value)) throw new Error(`CDDL: ${ref.Value} includes itself`);
        out.push(...this.members(rule.Properties, [...seen, ref.Value]));
      } else out.push(p);
    }
    return out;
  }

  private matchMap(
    properties: readonly (Property | Property[])[],
    value: unknown,
    path: string,
    what: string,
  ): Mismatch[] {
    const entries = mapEntries(value);
    if (entries === undefined)
      return [{ path, message: `expected a map (${what}), got ${show(value)}` }];
    const problems: Mismatch[] = [];
    const byKey = new Map<unknown, unknown>(entries);
    if (byKey.size !== entries.length) problems.push({ path, message: 'a key is repeated' });
    const taken = new Set<unknown>();
    const wildcards: Property[] = [];
    for (const member of this.members(properties, [])) {
      if (!member.HasCut && TEXT_KEY_TYPES.has(member.Name)) {
        wildcards.push(member);
        continue;
      }
      if (member.Name === '') throw new Error(`CDDL: a map member without a key in ${what}`);
      const at = `${path}.${member.Name}`;
      if (!byKey.has(member.Name)) {
        if (member.Occurrence.n > 0) problems.push({ path: at, message: 'missing' });
        continue;
      }
      taken.add(member.Name);
      problems.push(...this.matchType(member.Type, byKey.get(member.Name), at));
    }
    let rest = 0;
    for (const [key, v] of entries) {
      if (taken.has(key)) continue;
      const wildcard = wildcards[0];
      if (wildcard === undefined || typeof key !== 'string') {
        problems.push({ path: `${path}.${String(key)}`, message: `key not allowed in ${what}` });
        continue;
      }
      rest++;
      problems.push(...this.matchType(wildcard.Type, v, `${path}.${key}`));
    }
    if (wildcards.length > 1) throw new Error(`CDDL: more than one wildcard in ${what}`);
    const w = wildcards[0];
    if (
      w !== undefined &&
      (rest < w.Occurrence.n || (w.Occurrence.m !== null && rest > w.Occurrence.m))
    )
      problems.push({
        path,
        message: `${rest} other keys, outside ${w.Occurrence.n}..${w.Occurrence.m}`,
      });
    return problems;
  }

  /** Members matched in order, each as often as its occurrence allows (greedy). */
  private matchArray(
    values: readonly (Property | Property[])[],
    value: unknown,
    path: string,
  ): Mismatch[] {
    if (!Array.isArray(value)) return [{ path, message: `expected an array, got ${show(value)}` }];
    // In an array a bare rule name is an item's type, never a group spliced in (the arrays of
    // spec/ledger.cddl hold maps and scalars only).
    const members = values.map((p) => {
      if (Array.isArray(p)) throw new Error('CDDL: group choices (//) are not supported');
      return p;
    });
    let i = 0;
    for (const member of members) {
      const max = member.Occurrence.m ?? Infinity;
      let count = 0;
      while (count < max && i < value.length) {
        const problems = this.matchType(member.Type, value[i], `${path}[${i}]`);
        if (problems.length > 0) {
          if (count < member.Occurrence.n) return problems;
          break;
        }
        i++;
        count++;
      }
      if (count < member.Occurrence.n)
        return [{ path, message: `${count} item(s), at least ${member.Occurrence.n} expected` }];
    }
    if (i < value.length) {
      // Say why the first item left over did not match, when one member could have taken it.
      const last = members.at(-1);
      const why = last ? this.matchType(last.Type, value[i], `${path}[${i}]`) : [];
      return why.length > 0 ? why : [{ path, message: `${value.length - i} item(s) too many` }];
    }
    return [];
  }
}

interface RangeValue {
  Min: { Value: unknown } | number;
  Max: { Value: unknown } | number;
  Inclusive: boolean;
}

function bound(b: { Value: unknown } | number): number {
  const n = typeof b === 'number' ? b : b.Value;
  if (typeof n !== 'number')
    throw new Error(`CDDL: a range bound ${JSON.stringify(b)} is not a number`);
  return n;
}

function matchRange(range: RangeValue, value: unknown, path: string): Mismatch[] {
  const min = bound(range.Min);
  const max = bound(range.Max);
  const ok =
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= min &&
    (range.Inclusive ? value <= max : value < max);
  return ok
    ? []
    : [
        {
          path,
          message: `expected ${min}..${range.Inclusive ? '' : '.'}${max}, got ${show(value)}`,
        },
      ];
}

function isInt(value: unknown): boolean {
  return (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
}

/** The prelude's scalar types (RFC 8610 Appendix D). */
function matchNative(type: string, value: unknown, path: string): Mismatch[] {
  let ok: boolean;
  switch (type) {
    case 'any':
      ok = value !== undefined;
      break;
    case 'bool':
      ok = typeof value === 'boolean';
      break;
    case 'true':
    case 'false':
      ok = value === (type === 'true');
      break;
    case 'int':
      ok = isInt(value);
      break;
    case 'uint':
      ok = isInt(value) && (value as number) >= 0;
      break;
    case 'nint':
      ok = isInt(value) && (value as number) < 0;
      break;
    case 'tstr':
    case 'text':
      ok = typeof value === 'string';
      break;
    case 'bstr':
    case 'bytes':
      ok = value instanceof Uint8Array;
      break;
    case 'null':
    case 'nil':
      ok = value === null;
      break;
    default:
      throw new Error(`CDDL: prelude type ${type} is not supported`);
  }
  return ok ? [] : [{ path, message: `expected ${type}, got ${show(value)}` }];
}

function only(type: PropertyType | PropertyType[]): PropertyType | undefined {
  return Array.isArray(type) ? (type.length === 1 ? type[0] : undefined) : type;
}

function isRef(
  type: PropertyType | undefined,
): type is { Type: 'group'; Value: string } & PropertyType {
  return (
    typeof type === 'object' &&
    (type as { Type?: unknown }).Type === 'group' &&
    typeof (type as { Value?: unknown }).Value === 'string'
  );
}

function mapEntries(value: unknown): [unknown, unknown][] | undefined {
  if (value instanceof Map) return [...(value as Map<unknown, unknown>)];
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value) || value instanceof Uint8Array) return undefined;
  return Object.entries(value as Record<string, unknown>);
}

function show(value: unknown): string {
  if (value instanceof Uint8Array) return `a ${value.length}-byte string`;
  if (value instanceof Map) return 'a map';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a map';
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}
