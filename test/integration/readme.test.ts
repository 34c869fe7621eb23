/**
 * The TypeScript examples of the README and docs/ are code: each is compiled as written
 * (tsc --strict, NodeNext) in a project outside this checkout that imports 'lockchaos' as
 * a dependency, then run against real containers. (Every other block of those pages is
 * checked without Docker: test/unit/docs-blocks.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { docPages } from '../unit/doc-pages.js';
import { leftovers, requireEngine } from './support.js';

const skip = await requireEngine();

const blocks = docPages()
  .flatMap((page) => [...readFileSync(join(packageRoot, page), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)])
  .map((m) => m[1] as string);

/** A project that depends on lockchaos (a link to this package, as npm link would make). */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lockchaos-readme-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'readme-example', private: true, type: 'module' }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(packageRoot, join(dir, 'node_modules', 'lockchaos'));
  return dir;
}

function compileAndRun(dir: string, name: string, code: string) {
  writeFileSync(join(dir, `${name}.mts`), code);
  const tsc = spawnSync(
    process.execPath,
    [
      join(packageRoot, 'node_modules/typescript/bin/tsc'),
      ...['--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'],
      ...['--skipLibCheck', '--types', 'node', '--typeRoots', join(packageRoot, 'node_modules/@types')],
      `${name}.mts`,
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  expect(tsc.stdout + tsc.stderr).toBe('');
  return spawnSync(process.execPath, [`${name}.mjs`], { cwd: dir, encoding: 'utf8', timeout: 240_000 });
}

describe.skipIf(skip)('the TypeScript examples of the README and docs/', () => {
  it('there are the two of the Library API (docs/running.md)', () => {
    expect(blocks.length).toBe(2);
  });

  it('the library example runs as written: a run, a check of its lock operations, a campaign', () => {
    const dir = project();
    const r = compileAndRun(dir, 'library', blocks[0] as string);
    expect(r.status, r.stderr.slice(-2000)).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^false .*store\/redlock-lock-set-client-pause-unfenced\//);
    expect(lines[1]).toMatch(/^false /); // the lease lock is not a mutex under pauses
    expect(lines[2]).toMatch(/^true .*junit\.xml/);
  });

  it('the check-only example runs as written on a history file', async () => {
    const dir = project();
    // A kv history in Jepsen's EDN: a stale read of key x.
    writeFileSync(
      join(dir, 'history.edn'),
      [
        '{:process 0, :type :invoke, :f :put, :value ["x" "1"], :time 0}',
        '{:process 0, :type :ok, :f :put, :value ["x" "1"], :time 10}',
        '{:process 1, :type :invoke, :f :get, :value ["x" nil], :time 20}',
        '{:process 1, :type :ok, :f :get, :value ["x" ""], :time 30}',
      ].join('\n'),
    );
    const r = compileAndRun(dir, 'check', blocks[1] as string);
    expect(r.status, r.stderr.slice(-2000)).toBe(0);
    // Invalid in both: a get of x after the put of "1" read "" (never written).
    expect(r.stdout.trim().split('\n')[0]).toBe('false');
    expect(r.stdout.trim().split('\n')[1]).not.toBe('undefined');
    expect(await leftovers(r.pid)).toEqual([]);
  });
});
