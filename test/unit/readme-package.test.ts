/**
 * What the README shows a package user exists in the package: every path it gives under
 * node_modules/lockchaos/ is in `npm pack`'s file list, and the guide for a package user
 * (everything before "Working on lockchaos (from a checkout)") sends them to no file of the
 * checkout alone (scripts/, .ci/, test/, dist/ by a path of their own).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../src/scenarios/index.js';
import { packageRoot } from '../../src/util/paths.js';

const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
const packed: string[] = (
  JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageRoot, encoding: 'utf8' }),
  ) as { files: { path: string }[] }[]
)[0]?.files.map((f) => f.path) as string[];

describe("the README's paths for a package user", () => {
  it('starts with npm install --save-dev and npx, and ignores store/', () => {
    const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Requirements'));
    expect(quick).toMatch(/^npm install --save-dev lockchaos$/m);
    expect(quick).toMatch(/^npx lockchaos run /m);
    expect(quick).toMatch(/store\/ >> \.gitignore/);
    expect(readme.indexOf('## Quick start')).toBeLessThan(readme.indexOf('## Working on lockchaos (from a checkout)'));
  });

  it('every node_modules/lockchaos/ path is in the package', () => {
    const paths = [...readme.matchAll(/node_modules\/lockchaos\/([\w./-]*[\w/])/g)].map((m) => m[1] as string);
    expect(paths.length).toBeGreaterThan(5);
    for (const p of new Set(paths)) {
      const dir = p.endsWith('/') ? p : `${p}/`;
      expect(
        packed.some((f) => f === p || f.startsWith(dir)),
        `${p} is not in the package`,
      ).toBe(true);
    }
  });

  it("the package user's part names no file of the checkout alone", () => {
    const user = readme.slice(0, readme.indexOf('## Working on lockchaos (from a checkout)'));
    const stray = [...user.matchAll(/(?<![\w/.-])(scripts\/[\w.-]+|\.ci\/run|test\/[\w./-]+|dist\/[\w./-]+)/g)]
      .filter((m) => !/(a|the) checkout's /.test(user.slice(Math.max(0, (m.index ?? 0) - 40), m.index)))
      .map((m) => m[1]);
    expect(stray).toEqual([]);
  });
});

describe("the README's table of presets", () => {
  it('has a row for every preset `lockchaos scenarios` lists, and no other', () => {
    const rows = [...readme.matchAll(/^\| `([\w-]+)` \|.*\| *(?:invalid|valid)[^|]*\|[^|]*\|$/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(Object.keys(SCENARIOS).sort());
  });
});
