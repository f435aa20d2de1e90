/**
 * The format folder's import graph, type imports included, has no circle (issue 22: contract.ts
 * ↔ kit/sniff.ts). A circle through the contract means the contract cannot be read, built or
 * bundled on its own; type-only circles count because they are how value circles start.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../src/formats');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/^(?:import|export)\b[^;]*?from\s+'(\.[^']+)'/gms)];
  return found
    .map((m) => resolve(dirname(file), (m[1] ?? '').replace(/\.js$/, '.ts')))
    .filter((path) => path.startsWith(ROOT));
}

/** One circle of the graph, as the files on it, or undefined when there is none. */
function findCircle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const circle = visit(node);
    if (circle) return circle;
  }
  return undefined;
}

describe('src/formats import graph', () => {
  it('has no import circle, type imports included (contract.ts ↔ kit/sniff.ts was one)', () => {
    const graph = new Map(files(ROOT).map((f) => [f, importsOf(f)]));
    const circle = findCircle(graph)?.map((f) => f.slice(ROOT.length + 1));
    expect(circle).toBeUndefined();
  });
});
