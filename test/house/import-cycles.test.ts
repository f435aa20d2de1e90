import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// No module of src/ imports itself back, even through others and even for types only: a
// circle makes load order matter and hides which of two modules owns a job. Dynamic
// `import()` is left out on purpose: it is how a command defers loading, and runs later.
const ROOT = process.cwd();
const STATIC_IMPORT =
  /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const targets = [...readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)]
        .map((m) => normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts'))
        .filter((target) => known.has(target));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** Every strongly connected group of more than one module (Tarjan), as sorted relative paths. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      const selfImport = (graph.get(node) ?? []).includes(node);
      if (group.length > 1 || selfImport) found.push(group.map((f) => relative(ROOT, f)).sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import circles', () => {
  it('the finder sees a circle through a third module and a type-only import', () => {
    const graph = new Map([
      [join(ROOT, 'a.ts'), [join(ROOT, 'b.ts')]],
      [join(ROOT, 'b.ts'), [join(ROOT, 'c.ts')]],
      [join(ROOT, 'c.ts'), [join(ROOT, 'a.ts')]],
      [join(ROOT, 'd.ts'), [join(ROOT, 'a.ts')]],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(
      [
        ..."import type { X } from './x.js';\nexport { y } from '../y.js';".matchAll(STATIC_IMPORT),
      ].map((m) => m[1]),
    ).toEqual(['./x.js', '../y.js']);
  });

  it('no module of src/ or commands/ imports itself back, even for types', () => {
    const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'commands'))];
    expect(files.length).toBeGreaterThan(100);
    expect(circles(importGraph(files))).toEqual([]);
  });
});
