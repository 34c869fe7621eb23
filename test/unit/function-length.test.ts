/**
 * No function over 120 lines: a longer one is read in more than one sitting, and its parts
 * want names of their own. Every function, method, accessor, constructor and arrow of the
 * package's sources (not their tests) is measured from its first line to its last, with
 * the TypeScript compiler's parser. The one exception is the linearizability search
 * (checkers/linearizable/search.ts), which keeps its loop whole as Porcupine's does.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { sources } from './imports.js';

const MAX_LINES = 120;
const EXEMPT = ['checkers/linearizable/search.ts'];

/** Each function of the file longer than `max` lines: "path:line name (n lines)". */
function longFunctions(path: string, text: string, max = MAX_LINES): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line + 1;
  const long: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = lineOf(node.getStart(file));
      const lines = lineOf(node.end) - first + 1;
      if (lines > max) long.push(`${path}:${first} ${nameOf(node, file)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return long;
}

/** A function's name, or the name it is bound to (a variable, a property), else its kind. */
function nameOf(node: ts.SignatureDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(file);
  }
  return ts.SyntaxKind[node.kind];
}

describe('function length', () => {
  it(`no function of src, checkers, workloads, perf or scripts is over ${MAX_LINES} lines`, () => {
    const files = ['src', 'checkers', 'workloads', 'perf', 'scripts'].flatMap((d) => sources(join(packageRoot, d)));
    expect(files.length).toBeGreaterThan(300);
    const long = files
      .map((f) => relative(packageRoot, f).split('\\').join('/'))
      .filter((f) => !EXEMPT.includes(f))
      .flatMap((f) => longFunctions(f, readFileSync(join(packageRoot, f), 'utf8')));
    expect(long).toEqual([]);
  });

  it('measures functions, methods, arrows bound to names, and those nested in them', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const x${i} = ${i};`).join('\n');
    const text = [
      `function long() {\n${body(3)}\n}`,
      `class A {\n  m() {\n${body(3)}\n  }\n}`,
      `const arrow = () => {\n  const inner = function () {\n${body(2)}\n  };\n};`,
      `export default function () {\n${body(1)}\n}`,
    ].join('\n');
    expect(longFunctions('f.ts', text, 4)).toEqual([
      'f.ts:1 long (5 lines)',
      'f.ts:7 m (5 lines)',
      'f.ts:13 arrow (6 lines)',
    ]);
    expect(longFunctions('f.ts', text, 3)).toContain('f.ts:14 inner (4 lines)');
    expect(longFunctions('f.ts', text, 2)).toContain('f.ts:19 FunctionDeclaration (3 lines)');
  });
});
