/**
 * No import circle anywhere in the project: files that import each other, however far
 * round, read only together, and one of them always sees the other half-loaded. A type
 * they share goes in a module of its own (as src/report/report-data-types.ts). Type-only
 * imports count, as in the layer test: a circle of types is a circle of concepts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { importsOf, sources } from './imports.js';

/** file → the project files it imports. */
type Graph = Map<string, string[]>;

function graphOf(
  files: readonly string[],
  read: (file: string) => string,
  exists: (file: string) => boolean = existsSync,
): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const targets = importsOf(read(file)).map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    graph.set(
      file,
      targets.filter((t) => exists(t)),
    );
  }
  return graph;
}

/** The circles (strongly connected groups of two or more files, or a file importing itself), each sorted (Tarjan's). */
function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      group.push(w);
    }
    if (group.length > 1 || graph.get(v)?.includes(v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import circles', () => {
  it('there is none among the files of src, checkers, workloads, perf, scripts and test', () => {
    const files = ['src', 'checkers', 'workloads', 'perf', 'scripts', 'test'].flatMap((d) =>
      sources(join(packageRoot, d), true),
    );
    expect(files.length).toBeGreaterThan(300);
    const found = circles(graphOf(files, (f) => readFileSync(f, 'utf8')));
    expect(found.map((c) => c.map((f) => relative(packageRoot, f)).join(' <-> '))).toEqual([]);
  });

  it('finds a circle however far round, and a file importing itself, but not a chain', () => {
    const fake: Record<string, string> = {
      '/p/a.ts': "import type { B } from './b.js';",
      '/p/b.ts': "export { c } from './c.js';",
      '/p/c.ts': "const a = await import('./a.js');",
      '/p/d.ts': "import './d.js';\nimport { a } from './a.js';",
      '/p/e.ts': "import { d } from './d.js';",
    };
    const graph = graphOf(
      Object.keys(fake),
      (f) => fake[f] ?? '',
      (f) => f in fake,
    );
    expect(circles(graph)).toEqual([['/p/a.ts', '/p/b.ts', '/p/c.ts'], ['/p/d.ts']]);
  });
});
