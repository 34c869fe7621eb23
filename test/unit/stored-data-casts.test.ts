/**
 * No `as` cast on stored data where a campaign folder or a store is read (src/campaign-data,
 * src/serve): what a file holds is checked field by field (read-summary.ts), or narrowed by
 * a test the compiler follows, never asserted. The casts left are `as const` and a caught
 * error's (`err as Error`): neither is data from a file.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { sources } from './imports.js';

/** The file's casts, "path:line text", less `as const` and casts of a caught error. */
function casts(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const caught = new Set<string>();
  const found: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isCatchClause(n) && n.variableDeclaration) caught.add(n.variableDeclaration.name.getText(file));
    if (ts.isAsExpression(n) || ts.isTypeAssertionExpression(n)) {
      const isConst = ts.isConstTypeReference(n.type);
      const ofCaught = ts.isIdentifier(n.expression) && caught.has(n.expression.text);
      if (!isConst && !ofCaught) {
        found.push(`${path}:${file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1} ${n.getText(file)}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(file);
  return found;
}

describe('stored data is checked, not cast', () => {
  it('src/campaign-data and src/serve cast nothing they read', () => {
    const files = ['src/campaign-data', 'src/serve'].flatMap((d) => sources(join(packageRoot, d)));
    expect(files.length).toBeGreaterThan(10);
    const found = files.flatMap((f) => casts(relative(packageRoot, f), readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it("finds a cast of parsed JSON, and leaves `as const` and a caught error's", () => {
    const text = [
      "const a = JSON.parse('{}') as { state?: unknown };",
      "const b = ['x'] as const;",
      'try {} catch (err) { console.log((err as Error).message); }',
      'const c = <string>a.state;',
    ].join('\n');
    expect(casts('f.ts', text)).toEqual(["f.ts:1 JSON.parse('{}') as { state?: unknown }", 'f.ts:4 <string>a.state']);
  });
});
