/**
 * What the README and docs/ show a package user exists in the package: every path they
 * give under node_modules/lockchaos/ is in `npm pack`'s file list, and the pages for a
 * package user (all but docs/contributing.md) send them to no file of the checkout alone
 * (scripts/, .ci/, test/, dist/ by a path of their own). The README is a front door: short,
 * the quick start first, a link to every page of docs/, and for a person with a clone the
 * two commands to run first; package.json names where the project and its issues are.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../src/scenarios/index.js';
import { packageRoot } from '../../src/util/paths.js';
import { docPages } from './doc-pages.js';

const read = (page: string) => readFileSync(join(packageRoot, page), 'utf8');
const readme = read('README.md');
const userPages = docPages().filter((p) => p !== 'docs/contributing.md');
const packed: string[] = (
  JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageRoot, encoding: 'utf8' }),
  ) as { files: { path: string }[] }[]
)[0]?.files.map((f) => f.path) as string[];

describe('the README, a front door', () => {
  it('starts with npm install --save-dev and npx, and ignores store/', () => {
    const start = readme.indexOf('## Quick start');
    const quick = readme.slice(start, readme.indexOf('\n## ', start + 1));
    expect(quick).toMatch(/^npm install --save-dev lockchaos$/m);
    expect(quick).toMatch(/^npx lockchaos run /m);
    expect(quick).toMatch(/store\/ >> \.gitignore/);
  });

  it('is about 200 lines, names its supported platforms, and links every page of docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(220);
    expect(readme).toMatch(/^## Supported platforms\n\n\| platform .*\n.*\n\| Linux with a Docker engine/m);
    const next = readme.slice(readme.indexOf('## Where next'));
    for (const page of docPages().filter((p) => p !== 'README.md')) expect(next, page).toContain(`](${page})`);
  });
});

describe("the checkout's front door", () => {
  it('names the two first commands with a clone: the first run (a script that is there) and the tests', () => {
    const start = readme.indexOf('## From a checkout');
    expect(start).toBeGreaterThan(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    expect(section).toMatch(/^bash scripts\/first-run\.sh +# /m);
    expect(section).toMatch(/^npm test +# /m);
    expect(read('scripts/first-run.sh')).toMatch(/^#!\/usr\/bin\/env bash\n/);
    // The tests' last step: vitest's two projects side by side (scripts/test-side-by-side.ts).
    expect(JSON.parse(read('package.json')).scripts.test).toMatch(/node dist\/scripts\/test-side-by-side\.js$/);
    expect(read('scripts/test-side-by-side.ts')).toContain("'run'");
  });

  it("package.json names the project's repository, home page and issues, as the README does", () => {
    const pkg = JSON.parse(read('package.json'));
    expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/lockchaos/lockchaos.git' });
    expect(pkg.homepage).toBe('https://github.com/lockchaos/lockchaos#readme');
    expect(pkg.bugs).toEqual({ url: 'https://github.com/lockchaos/lockchaos/issues' });
    expect(readme).toContain(`<${pkg.bugs.url}>`);
  });
});

describe("the pages' paths for a package user", () => {
  it('every node_modules/lockchaos/ path is in the package', () => {
    const paths = userPages.flatMap((page) =>
      [...read(page).matchAll(/node_modules\/lockchaos\/([\w./-]*[\w/])/g)].map((m) => m[1] as string),
    );
    expect(paths.length).toBeGreaterThan(5);
    for (const p of new Set(paths)) {
      const dir = p.endsWith('/') ? p : `${p}/`;
      expect(
        packed.some((f) => f === p || f.startsWith(dir)),
        `${p} is not in the package`,
      ).toBe(true);
    }
  });

  it("the package user's pages name no file of the checkout alone", () => {
    for (const page of userPages) {
      const text = read(page);
      const stray = [...text.matchAll(/(?<![\w/.-])(scripts\/[\w.-]+|\.ci\/run|test\/[\w./-]+|dist\/[\w./-]+)/g)]
        .filter((m) => !/(a|the) checkout's /.test(text.slice(Math.max(0, (m.index ?? 0) - 40), m.index)))
        .map((m) => m[1]);
      expect(stray, page).toEqual([]);
    }
  });
});

describe("docs/running.md's table of presets", () => {
  it('has a row for every preset `lockchaos scenarios` lists, and no other', () => {
    const rows = [...read('docs/running.md').matchAll(/^\| `([\w-]+)` \|.*\| *(?:invalid|valid)[^|]*\|[^|]*\|$/gm)].map(
      (m) => m[1],
    );
    expect(rows.sort()).toEqual(Object.keys(SCENARIOS).sort());
  });
});
