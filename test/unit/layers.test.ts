/**
 * Dependencies point down. Each folder of the source has a layer; a file may import from
 * its own layer or a lower one, never a higher one (the order is docs/contributing.md's
 * "Layout and layers"). A folder that is not in the table fails the test: give it a layer.
 * Type-only imports count too: a type that a lower layer needs belongs down there.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { importsOf, sources } from './imports.js';

/** Folder (relative to the package root) → layer; lower numbers are lower layers. */
const LAYERS: Record<string, number> = {
  'src/util': 0,
  'src/stats': 0,
  'src/version.ts': 0,
  'src/history': 1,
  checkers: 2,
  'src/backends': 2,
  'src/cluster': 2,
  'src/datastore': 3,
  'src/target': 3,
  workloads: 3,
  'src/nemesis': 4,
  'src/run-data': 5,
  'src/worker': 5,
  'src/campaign-data': 6,
  'src/runner': 6,
  'src/scenarios': 7,
  'src/report': 8,
  'src/reported-run': 9,
  'src/shrink': 10,
  'src/campaign': 11,
  'src/explore': 11,
  'src/sweep': 12,
  'src/bench': 12,
  'src/serve': 12,
  'src/cli': 13,
  'src/check.ts': 13,
  'src/index.ts': 13,
  // The project's own programs over the package: its benchmarks, its build steps.
  perf: 14,
  scripts: 14,
};

/**
 * Folders that read runs and never run one: they take the run's data (src/run-data), not
 * the engine (src/runner), though the layers would allow it. A run and its report together
 * are src/reported-run's. A campaign's folder (src/campaign-data) is data too: merge,
 * serve and the job summary read it without the campaign that runs (src/campaign).
 */
const READERS_OF_RUNS = ['src/campaign-data', 'src/report', 'src/shrink', 'src/serve', 'src/sweep', 'src/bench'];

/** The table's entry for a file: its folder under src/ (or top folder), or the file itself. */
function unitOf(file: string): string | undefined {
  const rel = relative(packageRoot, file).split('\\').join('/');
  const parts = rel.split('/');
  if (parts[0] === 'src') return parts.length === 2 ? rel : `src/${parts[1]}`;
  return parts[0];
}

function upwardImports(files: readonly string[], read = (file: string) => readFileSync(file, 'utf8')): string[] {
  const wrong: string[] = [];
  for (const file of files) {
    const from = unitOf(file);
    const fromLayer = from === undefined ? undefined : LAYERS[from];
    if (from === undefined || fromLayer === undefined) {
      wrong.push(`${relative(packageRoot, file)}: its folder has no layer in test/unit/layers.test.ts`);
      continue;
    }
    for (const spec of importsOf(read(file))) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      const to = unitOf(target);
      const toLayer = to === undefined ? undefined : LAYERS[to];
      if (to === undefined || toLayer === undefined || toLayer > fromLayer) {
        wrong.push(
          `${relative(packageRoot, file)} (${from}, layer ${fromLayer}) imports ${spec} (${to}, layer ${toLayer})`,
        );
      }
    }
  }
  return wrong;
}

describe('the layer order', () => {
  const files = ['src', 'checkers', 'workloads', 'perf', 'scripts'].flatMap((d) => sources(join(packageRoot, d)));

  it('no source file imports from a higher layer', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(upwardImports(files)).toEqual([]);
  });

  it('the folders that read runs import nothing of the engine (src/runner)', () => {
    const engine = files
      .filter((f) => READERS_OF_RUNS.includes(unitOf(f) as string))
      .flatMap((file) =>
        importsOf(readFileSync(file, 'utf8'))
          .filter((spec) => unitOf(resolve(dirname(file), spec)) === 'src/runner')
          .map((spec) => `${relative(packageRoot, file)} imports ${spec}`),
      );
    expect(engine).toEqual([]);
  });

  it("the campaign folder's data imports neither the campaign that runs nor its readers", () => {
    const up = files
      .filter((f) => unitOf(f) === 'src/campaign-data')
      .flatMap((file) =>
        importsOf(readFileSync(file, 'utf8'))
          .filter((spec) =>
            ['src/campaign', 'src/serve', 'src/cli'].includes(unitOf(resolve(dirname(file), spec)) ?? ''),
          )
          .map((spec) => `${relative(packageRoot, file)} imports ${spec}`),
      );
    expect(files.filter((f) => unitOf(f) === 'src/campaign-data').length).toBeGreaterThan(5);
    expect(up).toEqual([]);
  });

  it('catches an upward import, a type-only one and a dynamic one', () => {
    const src = join(packageRoot, 'src');
    expect(importsOf("import type { X } from '../runner/run.js';\nconst m = await import('../cli/main.js');")).toEqual([
      '../runner/run.js',
      '../cli/main.js',
    ]);
    expect(unitOf(join(src, 'history', 'pairs.ts'))).toBe('src/history');
    expect(unitOf(join(src, 'index.ts'))).toBe('src/index.ts');
    expect(unitOf(join(packageRoot, 'checkers', 'models', 'kv.ts'))).toBe('checkers');
    const fake: Record<string, string> = {
      [join(src, 'history', 'a.ts')]: "import type { RunResult } from '../runner/run.js';",
      [join(src, 'runner', 'b.ts')]: "import { x } from '../history/a.js';\nexport { y } from './c.js';",
      [join(src, 'nowhere', 'c.ts')]: '',
    };
    expect(upwardImports(Object.keys(fake), (f) => fake[f] ?? '')).toEqual([
      'src/history/a.ts (src/history, layer 1) imports ../runner/run.js (src/runner, layer 6)',
      'src/nowhere/c.ts: its folder has no layer in test/unit/layers.test.ts',
    ]);
  });
});
