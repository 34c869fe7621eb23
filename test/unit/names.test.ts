/**
 * Names that say one thing each: no two source files of the names that were doubled
 * (model.ts, wire.ts, page.ts, json-schema.ts), one exported Workload type and one
 * checkRun, no top folder named as a room of src/ (bench/ beside src/bench/ was one), and
 * "target" in the code only for --target's hosts: a fault's part after its kind is its
 * aim (as the help and the docs call it too), a proxy's far end its upstream.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { sources } from './imports.js';

const ROOMS = ['src', 'checkers', 'workloads', 'perf', 'scripts'];
const files = ROOMS.flatMap((d) => sources(join(packageRoot, d))).map((f) => relative(packageRoot, f));
const parsed = (file: string) =>
  ts.createSourceFile(file, readFileSync(join(packageRoot, file), 'utf8'), ts.ScriptTarget.Latest, true);

/** Every identifier of the file, as written. */
function identifiers(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n)) found.push(n.text);
    ts.forEachChild(n, visit);
  };
  visit(file);
  return found;
}

/** The names a file exports by declaration (functions, classes, interfaces, types, consts). */
function exported(file: ts.SourceFile): string[] {
  return file.statements.flatMap((s) => {
    const exporting = ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exporting) return [];
    if (ts.isVariableStatement(s)) return s.declarationList.declarations.map((d) => d.name.getText(file));
    return 'name' in s && s.name ? [s.name.getText(file)] : [];
  });
}

describe('names', () => {
  it('no file name that was doubled appears twice', () => {
    for (const name of ['model.ts', 'wire.ts', 'page.ts', 'json-schema.ts']) {
      expect(files.filter((f) => basename(f) === name).length, name).toBeLessThanOrEqual(1);
    }
  });

  it('one exported Workload, one checkRun', () => {
    const exports = files.flatMap((f) => exported(parsed(f)).map((name) => `${name} ${f}`));
    expect(exports.filter((e) => e.startsWith('Workload '))).toEqual(['Workload workloads/workload.ts']);
    expect(exports.filter((e) => e.startsWith('checkRun '))).toEqual(['checkRun workloads/checks.ts']);
  });

  it('no top folder is named as a room of src/', () => {
    const dirs = (d: string) => readdirSync(d).filter((n) => statSync(join(d, n)).isDirectory());
    const rooms = new Set(dirs(join(packageRoot, 'src')));
    expect(dirs(packageRoot).filter((d) => rooms.has(d))).toEqual([]);
  });

  it('says target in the nemesis only for the --target hosts', () => {
    const nemesis = files.filter((f) => f.startsWith('src/nemesis/'));
    const targets = nemesis.flatMap((f) =>
      identifiers(parsed(f))
        .filter((id) => /target/i.test(id))
        .map((id) => `${id} ${f}`),
    );
    // notOnTargets: why a kind cannot run on --target's hosts.
    expect(targets.filter((t) => !t.startsWith('notOnTargets '))).toEqual([]);
    expect(targets.length).toBeGreaterThan(0);
  });
});
