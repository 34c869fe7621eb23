/**
 * Acceptance, not CI (npm run test:acceptance, about 3 minutes): exploration finds
 * renewlock's and retrylock's bugs with no fault named, and their fixes explored as far
 * break nothing. renewlock extends with a bare PEXPIRE that renews whoever's key stands;
 * retrylock retries a release whose connection broke with a plain DEL. The acceptance
 * over seeds is in docs/exploring.md's table of the fixtures.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { CLI, freshStore, requireEngine } from '../integration/support.js';

const skip = await requireEngine();
const store = freshStore();
const library = (name: string) => `/usr/bin/python3 ${join(packageRoot, 'test/fixtures/libraries', name, 'client.py')}`;

interface Explored {
  points: { point: string }[];
  rows: { point: string; spec: string; fault: string; violations: number; finding: string; replay: string }[];
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

describe.skipIf(skip)('explore the fixture libraries', () => {
  /**
   * A library explored unfenced with short runs and faults every second or so: its exit
   * code, stdout and table. A run of 3 s holds a fault's story (retrylock's retry comes a
   * second or more after the drop).
   */
  function exploreLibrary(name: string, budget: number) {
    const run = ['--backend', 'redis', '--client-command', library(name), '--fencing', 'off', '--ttl', '1000'];
    const { code, stdout } = explore([
      ...[...run, '--hold', '100', '--store', store, '--seed', '3', '--budget', String(budget)],
      ...['--run-time', '3', '--nemesis-interval', '1'],
    ]);
    const file = /(\S+\/explore\.json)$/m.exec(stdout)?.[1];
    const result = file ? (JSON.parse(readFileSync(file, 'utf8')) as Explored) : { points: [], rows: [] };
    return { code, stdout, result };
  }

  /** The library's bug found at `spec` within the budget, named by `finding`; its fix's exploration as far breaks nothing. */
  function findsTheBugNotTheFix(name: string, budget: number, spec: string, finding: RegExp) {
    const broken = exploreLibrary(name, budget);
    expect(broken.code, broken.stdout).toBe(1);
    const row = broken.result.rows.find((r) => r.violations > 0);
    expect(row?.spec, broken.stdout).toBe(spec);
    expect(row?.finding).toMatch(finding);
    const fixed = exploreLibrary(`${name}-fixed`, budget);
    expect(
      fixed.result.rows.filter((r) => r.violations > 0),
      fixed.stdout,
    ).toEqual([]);
    expect(fixed.result.rows.find((r) => r.spec === spec)?.finding, fixed.stdout).toBe('no violation');
    expect(fixed.code, fixed.stdout).not.toBe(1);
  }

  it("finds renewlock's extension renewing another's lock at its in-extend, the first try; not its fix's", () => {
    // The holder extends before it works, once a cycle: in-extend is tried first.
    findsTheBugNotTheFix(
      'renewlock',
      1,
      'client-pause:at=in-extend',
      /stopped inside its acquire \(client-pause at in-extend.*as if the lock were still its own/,
    );
  });

  it("finds retrylock's retried release deleting the next holder's lock under a dropped EVAL; not its fix's", () => {
    // Its release's EVAL, once a cycle, is tried first: pause, hold, stop, then drop.
    findsTheBugNotTheFix(
      'retrylock',
      4,
      'wire:EVAL:drop',
      /release, its EVAL dropped on the wire \(wire drop\), went on .* deleting process \d+'s lock/,
    );
  });
});
