/**
 * The package as a team gets it: `npm pack` of this checkout's build (npm test builds
 * first), installed with npm from the tarball into a fresh project (`npm install
 * --save-dev`, from npm's cache: npm ci filled it), and from there, with the installed
 * node_modules/.bin/lockchaos, every kind of page written: a run's report.html (by a run,
 * and again by `report`), a campaign's summary.html, a sweep's sweep.html and a bench's
 * bench.html, each with its inline script. npm writes a package's files in tarball order,
 * each with the time of writing, so nothing a page needs may depend on file times (issue
 * 58: with an mtime guard no page was ever written). The runs are the cheapest real ones:
 * one cell of 1-2 s each on Redis. Last, a compiled page module changed after its bundle
 * (tsc again without the bundling step) is still refused, and the campaign that stops on
 * it is recorded failed with the error, as serve then shows it. About a minute, most of it
 * npm install.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanStore } from '../../src/serve/store-index.js';
import { packageRoot } from '../../src/util/paths.js';
import { type CliResult, leftovers, requireEngine } from './support.js';

const skip = await requireEngine();
const work = mkdtempSync(join(tmpdir(), 'lockchaos-npm-install-'));
const project = join(work, 'project');
const store = join(project, 'store');
const bin = join(project, 'node_modules', '.bin', 'lockchaos');

/** Runs the installed lockchaos in the project. */
function installed(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ pid: child.pid ?? 0, code, stdout, stderr }));
  });
}

/** A one-cell campaign of 1 s on Redis. */
const ONE_CELL =
  'name: one\nmatrix:\n  - backend: redis\n    nemesis: none\n    fencing: on\n    seeds: [1]\n    expect: valid\n';

/** The one campaign folder of `name` in the store. */
function campaignDir(name: string, inStore = store): string {
  const parent = join(inStore, 'campaigns', name);
  const [stamp] = readdirSync(parent);
  return join(parent, stamp as string);
}

/** The one run folder of a one-cell campaign. */
function cellRunDir(campaign: string): string {
  const [cell] = readdirSync(join(campaign, 'runs'));
  const [stamp] = readdirSync(join(campaign, 'runs', cell as string));
  return join(campaign, 'runs', cell as string, stamp as string);
}

/** The page at `path`, asserted to inline its bundled script and call `entry`. */
function expectPageWithScript(path: string, entry: string): string {
  expect(existsSync(path), path).toBe(true);
  const html = readFileSync(path, 'utf8');
  expect(html).toMatch(/<script type="module">"use strict";\nvar lockchaosPage = \(\(\) => \{\n/);
  expect(html).toContain(`\nlockchaosPage.${entry}(`);
  return html;
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(skip)('lockchaos installed from its packed tarball', () => {
  beforeAll(() => {
    const packed = execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], {
      cwd: packageRoot,
      encoding: 'utf8',
    }).trim();
    const tarball = join(work, packed.split('\n').at(-1) as string);
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "scratch", "version": "1.0.0", "private": true }\n');
    execFileSync(
      'npm',
      ['install', '--save-dev', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error'],
      { cwd: project, stdio: 'pipe' },
    );
  }, 600_000);

  it('installs its command, with the page bundles and their stamps', () => {
    expect(existsSync(bin)).toBe(true);
    const browser = join(project, 'node_modules', 'lockchaos', 'dist', 'src', 'report', 'browser');
    expect(readdirSync(browser)).toEqual(
      expect.arrayContaining(['report-page.bundle.js', 'report-page.bundle.json', 'report-page.js']),
    );
  });

  it('a campaign writes summary.html and its run report.html; report writes it again', async () => {
    const file = join(project, 'one.yaml');
    writeFileSync(file, ONE_CELL);
    const r = await installed(['campaign', file, '--time-limit', '1', '--store', store, '--no-latest']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/internal error|not written/);
    expect(await leftovers(r.pid)).toEqual([]);
    const dir = campaignDir('one');
    expectPageWithScript(join(dir, 'summary.html'), 'sortableTables');
    const run = cellRunDir(dir);
    expectPageWithScript(join(run, 'report.html'), 'reportPage');
    rmSync(join(run, 'report.html'));
    const again = await installed(['report', run]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^report: .*\/report\.html$/m);
    expectPageWithScript(join(run, 'report.html'), 'reportPage');
  });

  it.each([
    ['sweep', 'sweep-redis-unfenced', 'sweepPlots', ['--pause-ttl', '0.5', '--trials', '1', '--time-limit', '2']],
    ['bench', 'bench', 'benchPlots', ['--concurrency', '1', '--jitter', '0', '--time-limit', '1']],
  ])('a %s writes its page and its summary.html', async (command, name, entry, args) => {
    const r = await installed([command, '--backend', 'redis', ...args, '--store', store, '--no-latest']);
    expect(r.code, r.stderr).toBe(0);
    expect(await leftovers(r.pid)).toEqual([]);
    const dir = campaignDir(name);
    expectPageWithScript(join(dir, `${command}.html`), entry);
    expectPageWithScript(join(dir, 'summary.html'), 'sortableTables');
  });

  // Last: it breaks the installed package.
  it('still refuses a bundle made from other code; the campaign that stops on it is recorded failed', async () => {
    // tsc run again without the bundling step: the compiled module is not the one bundled.
    const browser = join(project, 'node_modules', 'lockchaos', 'dist', 'src', 'report', 'browser');
    appendFileSync(join(browser, 'sortable-tables.js'), '// compiled again, not bundled\n');
    const broken = join(work, 'broken-store');
    const file = join(project, 'one.yaml');
    writeFileSync(file, ONE_CELL);
    const r = await installed(['campaign', file, '--time-limit', '1', '--store', broken, '--no-latest']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^lockchaos campaign: internal error: Error: page script \S+sortable-tables\.bundle\.js was bundled from another \S+sortable-tables\.js: build with npm run build$/m,
    );
    expect(r.stderr).toContain('please report it at https://github.com/lockchaos/lockchaos/issues');
    expect(await leftovers(r.pid)).toEqual([]);
    // Not "running" (which serve would call a killed runner): failed, and why.
    const summary = JSON.parse(readFileSync(join(campaignDir('one', broken), 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ state: 'failed', met: false, notRun: [{ index: 0 }] });
    expect(summary.failedBy).toMatch(
      /^internal error: page script .*sortable-tables\.bundle\.js was bundled from another/,
    );
    const [entry] = scanStore(broken).campaigns;
    expect(entry).toMatchObject({ state: 'failed', failedBy: summary.failedBy });
  });
});
