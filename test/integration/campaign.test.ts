import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { CLI, type CliResult, leftovers, lockchaos, requireEngine } from './support.js';

const skip = await requireEngine();
const work = mkdtempSync(join(tmpdir(), 'lockchaos-campaign-'));

function file(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

/** The small campaign of the brief: 4 cells, 1 seed, short runs, faults every second. */
const SMALL = file(
  'small.yaml',
  `name: small
seeds: [1]
defaults:
  time-limit: 20          # --time-limit 6 below overrides it
  nemesis-interval: 1
matrix:
  - backend: redis
    nemesis: none
    fencing: [on, off]
    expect: valid
  - backend: redlock
    nemesis: [none, client-pause]
    fencing: off
    expect: valid
    overrides:
      - when: { nemesis: client-pause }
        expect: invalid
`,
);

interface SummaryCell {
  index: number;
  id: string;
  expect: string;
  actual: string;
  met: boolean;
  message: string;
  dir?: string;
  report?: string;
  config: { timeLimitS: number; seed: number };
}
interface Summary {
  name: string;
  met: boolean;
  interrupted: boolean;
  shard: { index: number; count: number } | null;
  totalCells: number;
  cells: SummaryCell[];
}

/** The campaign folder named on the CLI's last lines. */
function campaignDir(r: CliResult): string {
  const m = /campaign folder: (.+?) {2}\(summary\.html/.exec(r.stdout);
  if (!m?.[1]) throw new Error(`no campaign folder in:\n${r.stdout}\n${r.stderr}`);
  return m[1];
}

const summaryOf = (dir: string): Summary => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));

function xmllint(path: string): { status: number | null; stderr: string } {
  const r = spawnSync('xmllint', ['--noout', path], { encoding: 'utf8' });
  if (r.error) throw new Error(`xmllint is missing (apt-get install libxml2-utils): ${r.error.message}`);
  return { status: r.status, stderr: r.stderr };
}

/** The cell numbers a --dry-run lists. */
const listed = (stdout: string) =>
  stdout
    .split('\n')
    .slice(1)
    .filter((l) => l.trim())
    .map((l) => Number(l.trim().split(/\s+/)[0]));

describe.skipIf(skip)('lockchaos campaign, on real servers', () => {
  it('runs a small matrix two at a time: every cell meets its expectation, exit 0', async () => {
    const store = join(work, 'store-all');
    const r = await lockchaos(['campaign', SMALL, '--time-limit', '6', '--parallel', '2', '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^#\s+cell\s+expect\s+actual\s+time\s+result$/m);
    expect(r.stdout).toMatch(
      /^4\s+redlock\/lock-set\/client-pause\/unfenced\/seed-1\s+invalid\s+INVALID\s+[\d.]+ s\s+ok$/m,
    );
    expect(r.stdout).toContain('campaign small: 4 cells, 4 met their expectation');

    const dir = campaignDir(r);
    expect(realpathSync(dir).startsWith(realpathSync(join(store, 'campaigns', 'small')))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(
      expect.arrayContaining([
        'campaign.json',
        'campaign.yaml',
        'junit.xml',
        'logs',
        'runs',
        'summary.html',
        'summary.json',
      ]),
    );
    const s = summaryOf(dir);
    expect(s).toMatchObject({ name: 'small', met: true, interrupted: false, shard: null, totalCells: 4 });
    expect(s.cells.map((c) => [c.id, c.expect, c.actual, c.met])).toEqual([
      ['redis/lock-set/none/fenced/seed-1', 'valid', 'valid', true],
      ['redis/lock-set/none/unfenced/seed-1', 'valid', 'valid', true],
      ['redlock/lock-set/none/unfenced/seed-1', 'valid', 'valid', true],
      ['redlock/lock-set/client-pause/unfenced/seed-1', 'invalid', 'invalid', true],
    ]);
    for (const c of s.cells) {
      expect(c.config.timeLimitS).toBe(6);
      // Each run's own folder, inside the campaign's.
      expect(c.dir).toBeDefined();
      const runDir = join(dir, c.dir as string);
      expect(JSON.parse(readFileSync(join(runDir, 'test.json'), 'utf8'))).toMatchObject({ seed: 1, timeLimitS: 6 });
      expect(existsSync(join(runDir, 'history.jsonl'))).toBe(true);
      expect(c.report).toBe(`${c.dir}/report.html`);
    }
    expect(s.cells[3]?.message).toMatch(/^invalid as expected: mutual-exclusion: \d+ overlapping holds/);

    const junit = join(dir, 'junit.xml');
    expect(xmllint(junit)).toEqual({ status: 0, stderr: '' });
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml).not.toContain('<failure');

    const html = readFileSync(join(dir, 'summary.html'), 'utf8');
    for (const c of s.cells) expect(html).toContain(`href="${c.dir}/report.html"`);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it.each(['campaign', 'sweep', 'bench'])(
    '%s --time-limit is bounded as run bounds it, before any cell (not a dry run that passes, then every cell failing)',
    async (command) => {
      const r = await lockchaos([
        command,
        ...(command === 'campaign' ? [SMALL] : []),
        '--time-limit',
        '100000',
        '--dry-run',
      ]);
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`lockchaos ${command}: --time-limit must be at most 86400 s (a day), got '100000'\n`);
    },
  );

  it('shards partition the cells exactly; one real shard runs only its own', async () => {
    const all = await lockchaos(['campaign', SMALL, '--dry-run']);
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n')[0]).toBe('campaign small: 4 of 4 cells');
    const one = await lockchaos(['campaign', SMALL, '--dry-run', '--shard', '1/2']);
    const two = await lockchaos(['campaign', SMALL, '--dry-run', '--shard', '2/2']);
    expect([one.code, two.code]).toEqual([0, 0]);
    const [a, b] = [listed(one.stdout), listed(two.stdout)];
    expect([...a, ...b].sort()).toEqual(listed(all.stdout));
    expect(a.filter((k) => b.includes(k))).toEqual([]);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);

    const store = join(work, 'store-shard');
    const r = await lockchaos([
      ...['campaign', SMALL, '--shard', '2/2', '--time-limit', '6', '--parallel', '2', '--store', store],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const dir = campaignDir(r);
    expect(basename(dir)).toMatch(/-shard-2-of-2$/);
    const s = summaryOf(dir);
    expect(s.shard).toEqual({ index: 2, count: 2 });
    expect(s.totalCells).toBe(4);
    expect(s.cells.map((c) => c.index + 1)).toEqual(b);
    expect(readdirSync(join(dir, 'runs')).filter((n) => n !== 'latest')).toHaveLength(b.length);
    expect(xmllint(join(dir, 'junit.xml')).status).toBe(0);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('a wrong expectation fails the campaign with exit 1 and a JUnit failure that says why', async () => {
    const wrong = file(
      'wrong.yaml',
      'name: wrong\nseeds: [4]\nmatrix:\n  - backend: redis\n    nemesis: none\n    expect: invalid\n',
    );
    const store = join(work, 'store-wrong');
    const r = await lockchaos(['campaign', wrong, '--time-limit', '4', '--store', store]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^1\s+redis\/lock-set\/none\/unfenced\/seed-4\s+invalid\s+valid\s+[\d.]+ s\s+MISMATCH$/m);
    expect(r.stdout).toContain('expected invalid, got valid: the known-unsafe configuration was not caught');
    const dir = campaignDir(r);
    expect(summaryOf(dir)).toMatchObject({ met: false });
    const junit = join(dir, 'junit.xml');
    expect(xmllint(junit).status).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(
      /<failure message="expected invalid, got valid: [^"]*\(report: [^"]*report\.html\)" type="violation">/,
    );
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('Ctrl-C aborts the run in progress, tears it down, writes what was finished, exit 130', async () => {
    const slow = file(
      'slow.yaml',
      'name: slow\nseeds: [1, 2]\ndefaults: { time-limit: 60 }\nmatrix:\n  - backend: redis\n    expect: valid\n',
    );
    const store = join(work, 'store-slow');
    const r = await new Promise<CliResult>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'campaign', slow, '--store', store, '--verbose'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let sent = false;
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => {
        stderr += d;
        // Both cells start their clusters at once; the first ready takes the workload slot.
        if (!sent && /\[\d\] running lock-set with/.test(stderr)) {
          sent = true;
          // Into the workload of the first run (of 60 s), the other waiting for its slot.
          setTimeout(() => child.kill('SIGINT'), 1000);
        }
      });
      child.on('close', (code) => resolve({ pid: child.pid ?? 0, code, stdout, stderr }));
    });
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('SIGINT: stopping the campaign');
    const s = summaryOf(campaignDir(r));
    expect(s.interrupted).toBe(true);
    // The second cell's cluster had started ahead of its workload slot: interrupted too.
    expect(s.cells.map((c) => c.actual)).toEqual(['aborted', 'aborted']);
    // The runs stopped early (healed, torn down), not at their 60 s time limit.
    for (const cell of s.cells) expect((cell as SummaryCell & { durationS: number }).durationS).toBeLessThan(50);
    expect(readFileSync(join(campaignDir(r), 'junit.xml'), 'utf8')).toContain(
      '<skipped message="interrupted before the run finished: no verdict"/>',
    );
    expect(await leftovers(r.pid)).toEqual([]);
  });
});

describe('lockchaos campaign: bad campaign files and flags', () => {
  it.each([
    ['missing.yaml', [], /^lockchaos campaign: .*missing\.yaml: cannot read the campaign file \(no such file\)$/],
    [
      'fencing.yaml',
      [
        'seeds: [1]',
        'matrix:',
        '  - backend: redis',
        '    expect: valid',
        '  - backend: redis',
        '    fencing: maybe',
        '    expect: valid',
      ],
      /^lockchaos campaign: .*fencing\.yaml: matrix\[1\]\.fencing: expected a list of on\|off, got "maybe"$/,
    ],
    [
      'empty.yaml',
      ['seeds: [1]', 'matrix: []'],
      /empty\.yaml: matrix: expected a non-empty list of matrix entries, got \[\]$/,
    ],
    [
      'unknown.yaml',
      ['seeds: [1]', 'matrx: []'],
      // Every problem at once: the misspelt key, and the matrix it left missing.
      /unknown\.yaml: 2 problems: matrx: unknown key: did you mean matrix\? Expected one of name, description, shrink, seeds, defaults, matrix; matrix: expected .*, got nothing$/,
    ],
    [
      'backend.yaml',
      ['seeds: [1]', 'matrix:', '  - backend: etcdx', '    expect: valid'],
      /backend\.yaml: matrix\[0\]\.backend: unknown backend "etcdx": did you mean etcd\? Expected one of redis\|redlock/,
    ],
    [
      'redlock.yaml',
      ['seeds: [1]', 'matrix:', '  - backend: redlock', '    fencing: on', '    expect: valid'],
      /redlock\.yaml: matrix\[0\]\.fencing: redlock cannot be fenced/,
    ],
  ])('%s: one line, exit 3', async (name, lines, message) => {
    const path = lines.length ? file(name, `${lines.join('\n')}\n`) : join(work, name);
    const r = await lockchaos(['campaign', path, '--store', join(work, 'store-bad')]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it.each([
    [['--shard', '3/2'], /--shard takes i\/n with 1 <= i <= n \(e\.g\. 2\/4\), got '3\/2'/],
    [['--parallel', '0'], /--parallel takes a whole number > 0, got '0'/],
    [['--time-limit', 'soon'], /--time-limit takes a number > 0, got 'soon'/],
  ])('refuses %j with one line and exit 3', async (args, message) => {
    const r = await lockchaos(['campaign', SMALL, '--dry-run', ...args]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});

/**
 * A team's backend module with its own image, in a folder of its own: its Dockerfile
 * builds `image` (a tag of this test's own, removed after it).
 */
function ownImageBackend(folder: string, image: string, dockerfile: string): void {
  mkdirSync(folder, { recursive: true });
  const example = readFileSync(join(packageRoot, 'examples/backends/own-image/backend.mjs'), 'utf8');
  const index = pathToFileURL(join(packageRoot, 'dist/src/index.js')).href;
  writeFileSync(
    join(folder, 'backend.mjs'),
    example.replace("from 'lockchaos'", `from '${index}'`).replaceAll('my-lock-service:1', image),
  );
  writeFileSync(join(folder, 'Dockerfile'), dockerfile);
}

describe.skipIf(skip)('lockchaos campaign of a module backend with its own image', () => {
  const image = `lockchaos-test/own-image-${process.pid}:1`;
  afterAll(() => {
    spawnSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
  });

  it("takes its path from the campaign file's folder and builds its image before the first cell", async () => {
    const team = join(work, 'team');
    ownImageBackend(
      join(team, 'lock'),
      image,
      `FROM lockchaos/node:3\nCMD ["redis-server", "--port", "7000", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]\n`,
    );
    mkdirSync(join(team, 'ci'), { recursive: true });
    const yaml = join(team, 'ci', 'own.yaml');
    writeFileSync(
      yaml,
      'seeds: [1]\nmatrix:\n  - backend: ../lock/backend.mjs\n    nemesis: client-pause\n    fencing: on\n    expect: valid\n',
    );
    const elsewhere = mkdtempSync(join(tmpdir(), 'lockchaos-elsewhere-'));
    const store = join(work, 'store-own');
    const r = await lockchaos(['campaign', yaml, '--store', store, '--time-limit', '4', '--no-latest'], {
      cwd: elsewhere,
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    const built = lines.findIndex((l) => l.startsWith(`image ${image} is missing: building it from`));
    const first = lines.findIndex((l) => l.includes(': starting (expect valid)'));
    expect(lines).toContain(`images for 1 cell: ${image}, lockchaos/node:3`);
    expect(built).toBeGreaterThanOrEqual(0);
    expect(first).toBeGreaterThan(built);
    const dir = campaignDir(r);
    const cell = summaryOf(dir).cells[0];
    expect(cell?.id).toBe('my-lock-service/lock-set/client-pause/fenced/seed-1');
    expect(cell?.actual).toBe('valid');
    const test = JSON.parse(readFileSync(join(dir, cell?.dir as string, 'test.json'), 'utf8'));
    expect(test).toMatchObject({ backend: '../lock/backend.mjs', backendModule: join(team, 'lock', 'backend.mjs') });
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('an image that cannot be built stops the campaign before its first cell: one line, exit 3', async () => {
    const broken = join(work, 'broken');
    ownImageBackend(broken, `${image}-broken`, 'FROM lockchaos/node:3\nRUN exit 7\n');
    const yaml = join(broken, 'c.yaml');
    writeFileSync(yaml, 'seeds: [1]\nmatrix:\n  - backend: ./backend.mjs\n    fencing: on\n    expect: valid\n');
    const r = await lockchaos(['campaign', yaml, '--store', join(work, 'store-broken'), '--time-limit', '3']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^lockchaos campaign: building lockchaos-test\/own-image-\d+:1-broken failed \(exit \d+\): run 'docker build --force-rm -t \S+ .*broken' to see why$/,
    );
    expect(r.stderr).not.toMatch(/starting \(expect|\n\s+at /);
  });
});

// The nightly workflow runs `lockchaos doctor` before a campaign.
describe.skipIf(skip)('lockchaos doctor', () => {
  it('checks the machine, one line per check, and leaves nothing behind', async () => {
    const r = await lockchaos(['doctor']);
    expect(r.code, r.stdout).toBe(0);
    for (const name of ['node', 'docker', 'node image', 'iptables', 'sigstop']) {
      expect(r.stdout).toMatch(new RegExp(`^ok\\s+${name}\\s+\\S`, 'm'));
    }
    expect(r.stdout).toMatch(/^(ok|warn)\s+chromium\s+\S/m);
    // The optional parts: a warning at worst, saying what is missing without them.
    expect(r.stdout).toMatch(/^(ok|warn)\s+zookeeper\s+\S/m);
    expect(r.stdout).toMatch(/^(ok|warn)\s+postgres image\s+\S/m);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('all required checks passed');
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('says what to do when no engine answers, exit 3', async () => {
    const r = await new Promise<CliResult>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'doctor'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, DOCKER_HOST: `unix://${join(work, 'no-engine.sock')}` },
      });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.on('close', (code) => resolve({ pid: child.pid ?? 0, code, stdout, stderr: '' }));
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^FAIL\s+docker\s+no Docker engine answers .*: start one/m);
    expect(r.stdout).toMatch(/^FAIL\s+node image\s+not checked: it needs a Docker engine/m);
  });
});
