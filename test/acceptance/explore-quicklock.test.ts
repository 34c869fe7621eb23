/**
 * Exploration on real Redis with a real program (test/fixtures/libraries), no fault named:
 * quicklock deletes its key on its local deadline without checking it still owns it (the
 * baseline learns its DEL on the wire and a wire fault there breaks the lock), alone and as
 * a campaign's cell (about 95 s: acceptance, npm run test:acceptance, not CI). The other
 * fixtures and their fixes: explore-fixtures.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { CLI, freshStore, lockchaos, requireEngine } from '../integration/support.js';

const skip = await requireEngine();
const store = freshStore();
const library = (name: string) => `/usr/bin/python3 ${join(packageRoot, 'test/fixtures/libraries', name, 'client.py')}`;

interface Explored {
  points: { point: string }[];
  rows: {
    point: string;
    spec: string;
    fault: string;
    violations: number;
    finding: string;
    replay: string;
    shrunk?: { runs: number; replay?: string; error?: string };
  }[];
}

/** The command's exit code and stdout (it exits 1 when a configuration broke the lock). */
function explore(args: string[]): { code: number; stdout: string } {
  try {
    return { code: 0, stdout: execFileSync(process.execPath, [CLI, 'explore', ...args], { encoding: 'utf8' }) };
  } catch (err) {
    const e = err as { status: number; stdout: string };
    return { code: e.status, stdout: e.stdout };
  }
}

describe.skipIf(skip)('explore', () => {
  it("finds quicklock's DEL without being told where to aim", () => {
    const { code, stdout } = explore([
      '--backend',
      'redis',
      '--client-command',
      library('quicklock'),
      '--fencing',
      'off',
      '--ttl',
      '1000',
      '--hold',
      '100',
      '--store',
      store,
      '--seed',
      '11',
      // Its DEL is sent once a cycle, as often as the lock is granted: tried first.
      '--budget',
      '2',
      '--run-time',
      '5',
      '--shrink-runs',
      '2',
    ]);
    expect(code, stdout).toBe(1);
    const file = /(\S+\/explore\.json)$/m.exec(stdout)?.[1] as string;
    const result = JSON.parse(readFileSync(file, 'utf8')) as Explored;
    expect(result.points.map((p) => p.point)).toContain('wire:DEL');
    const del = result.rows.find((r) => r.point === 'wire:DEL' && r.violations > 0);
    expect(del?.spec, stdout).toMatch(/^wire:DEL:(pause|hold|stop|drop)$/);
    expect(del?.replay).toMatch(/^lockchaos run .*--nemesis wire:DEL:\w+ --seed \d+$/);
    expect(stdout).toMatch(/wire:DEL\s+wire:\w+\s+1\s+1\s+/);
    // Its violating try, shrunk within 2 runs: the smallest schedule's replay, on the row.
    expect(del?.shrunk?.error).toBeUndefined();
    expect(del?.shrunk?.runs).toBeGreaterThanOrEqual(1);
    expect(del?.shrunk?.runs).toBeLessThanOrEqual(2);
    const schedule = / run --schedule (\S+minimal-schedule\.json)$/.exec(del?.shrunk?.replay ?? '')?.[1];
    expect(schedule, del?.shrunk?.replay).toBeDefined();
    expect(JSON.parse(readFileSync(schedule as string, 'utf8')).faults.length).toBeGreaterThanOrEqual(1);
    expect(stdout).toMatch(/\n {4}(shrunk in \d runs to|already minimal after \d shrink runs).* run --schedule \S+/);
  });

  it('a campaign cell that explores: quicklock, expected invalid, is met and says what broke it', async () => {
    const file = join(store, 'explore-campaign.yaml');
    writeFileSync(
      file,
      [
        'name: explore-quicklock',
        'seeds: [11]',
        'matrix:',
        '  - backend: redis',
        `    options: { client-command: "${library('quicklock')}", ttl: 1000, hold: 100 }`,
        '    explore: { budget: 2, run-time: 5, shrink-runs: 0 }',
        '    expect: invalid',
      ].join('\n'),
    );
    // Listed by its budget, not a time limit.
    const listed = await lockchaos(['campaign', file, '--dry-run']);
    expect(listed.stdout).toMatch(
      /^ {3}1 {2}redis\+quicklock\/lock-set\/explore\/unfenced\/seed-11 {2}expect invalid {2}explore 2 tries of 5 s$/m,
    );
    const r = await lockchaos(['campaign', file, '--store', store]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /redis\+quicklock\/lock-set\/explore\/unfenced\/seed-11\s+invalid\s+INVALID\s+[\d.]+ s\s+ok/,
    );
    const dir = /campaign folder: (.+?) {2}\(summary\.html/.exec(r.stdout)?.[1] as string;
    const [cell] = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).cells as {
      nemesis: string;
      actual: string;
      met: boolean;
      message: string;
      report: string;
      exploration: { file: string; tries: number; broken: { spec: string; replay: string }[] };
    }[];
    expect(cell).toMatchObject({ nemesis: 'explore', actual: 'invalid', met: true });
    expect(cell?.message).toMatch(/^invalid as expected: wire:DEL:\w+ broke the lock: /);
    expect(cell?.exploration.tries).toBeGreaterThanOrEqual(1);
    expect(cell?.exploration.broken[0]?.replay).toMatch(/^lockchaos run .*--nemesis wire:DEL:\w+ --seed \d+$/);
    // Its explore.json, and the report of the run that broke the lock, inside the campaign folder.
    expect(JSON.parse(readFileSync(join(dir, cell?.exploration.file as string), 'utf8')).exitCode).toBe(1);
    expect(readFileSync(join(dir, cell?.report as string), 'utf8')).toMatch(/<html/i);
  });
});
