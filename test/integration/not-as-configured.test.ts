/**
 * Runs that did not run as asked say so, with their exit code, and still tear down:
 * interrupted (SIGINT, exit 130), a client worker killed (exit 3), the data store lost
 * (exit 3). On c7f3e6e the first was a plain `valid` exit 0, the second unreported, the
 * third an "internal error" with a stack and no results.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, type CliResult, freshStore, leftovers, requireEngine } from './support.js';

const skip = await requireEngine();

/**
 * Runs `lockchaos run` in a store of its own (the tests run two at a time); `afterMs` (2 s)
 * after its clients start, `act(runner pid, run id)`.
 */
function runAndAct(
  args: string[],
  act: (pid: number, runId: string) => unknown,
  afterMs = 2000,
): Promise<CliResult & { store: string }> {
  const store = freshStore();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'run', '--store', store, '--concurrency', '3', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let acted = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      const runId = /\(run ([0-9a-f]+)\)/.exec(stderr)?.[1];
      if (!acted && runId && /running lock-set/.test(stderr)) {
        acted = true;
        setTimeout(() => void act(child.pid as number, runId), afterMs);
      }
    });
    child.on('close', (code) => resolve({ pid: child.pid ?? 0, code, stdout, stderr, store }));
  });
}

function runFolder(store: string) {
  const dir = realpathSync(join(store, 'latest'));
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { results: JSON.parse(read('results.json')), junit: read('junit.xml'), html: read('report.html') };
}

describe.skipIf(skip)('a run that did not run as configured', () => {
  // The first five two at a time (the integration project's maxConcurrency): each acts on its
  // own run. The last polls Docker from this thread and waits for its turn alone.
  it.concurrent('interrupted by SIGINT: exit 130, marked everywhere, torn down', async () => {
    const r = await runAndAct(['--time-limit', '20', '--seed', '1'], (pid) => process.kill(pid, 'SIGINT'));
    expect(r.stdout).toMatch(
      /verdict: unknown .*did not run as configured: interrupted \(SIGINT\) at \d+(\.\d)? s of 20 s/,
    );
    expect(r.code).toBe(130);
    const f = runFolder(r.store);
    expect(f.results.conditions).toEqual([{ kind: 'interrupted', message: expect.stringMatching(/SIGINT/) }]);
    expect(f.junit).toContain('name="run as configured"');
    expect(f.html).toContain('id="not-as-configured"');
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it.concurrent('a client worker killed: reported, exit 3', async () => {
    const r = await runAndAct(['--time-limit', '6', '--seed', '2'], (pid) => {
      const children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
        .trim()
        .split('\n');
      process.kill(Number(children[0]), 'SIGKILL');
    });
    expect(r.stdout).toMatch(/did not run as configured: client worker \d killed by SIGKILL at \d+(\.\d)? s/);
    expect(r.code).toBe(3);
    expect(runFolder(r.store).results.conditions[0].kind).toBe('worker-lost');
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it.concurrent('the data store lost: results written, exit 3, no stack', async () => {
    const r = await runAndAct(['--time-limit', '5', '--seed', '3'], (_pid, runId) => {
      execFileSync('docker', ['kill', `lockchaos-${runId}-store`]);
    });
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(r.stdout).toMatch(/did not run as configured: the data store did not answer the final read/);
    expect(r.code).toBe(3);
    const f = runFolder(r.store);
    expect(f.results.conditions.map((c: { kind: string }) => c.kind)).toEqual(['store-lost']);
    // No final read to judge by: lost updates cannot be told, and say why (not "in the final read").
    expect(r.stdout).toMatch(/lost-updates +unknown +no final read: the data store did not answer it/);
    expect(f.results.results.find((c: { checker: string }) => c.checker === 'lost-updates')).toMatchObject({
      valid: 'unknown',
      details: { finalRead: false },
    });
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it.concurrent('the lock node killed outside the nemesis: not valid, exit 3, the node named', async () => {
    const r = await runAndAct(['--time-limit', '5', '--seed', '4', '--nemesis', 'none'], (_pid, runId) => {
      execFileSync('docker', ['kill', `lockchaos-${runId}-redis-1`]);
    });
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(r.stdout).toMatch(
      /did not run as configured: lock node redis-1 exited with code \d+, and no fault of the run took it down/,
    );
    expect(r.stdout).not.toMatch(/verdict: valid/);
    expect(r.code).toBe(3);
    expect(runFolder(r.store).results.conditions.map((c: { kind: string }) => c.kind)).toContain('node-lost');
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it.concurrent('the only lock node cut off with docker network disconnect: not valid, exit 3, the node named', async () => {
    const r = await runAndAct(['--time-limit', '5', '--seed', '5', '--nemesis', 'none'], (_pid, runId) => {
      execFileSync('docker', ['network', 'disconnect', `lockchaos-${runId}`, `lockchaos-${runId}-redis-1`]);
    });
    expect(r.stdout).toMatch(
      /did not run as configured: lock node redis-1 is cut off from the run's network \(a docker network disconnect\?\), and no fault of the run did it/,
    );
    expect(r.stdout).not.toMatch(/verdict: valid/);
    expect(r.code).toBe(3);
    expect(runFolder(r.store).results.conditions.map((c: { kind: string }) => c.kind)).toEqual(['node-lost']);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('a node cut off while kill-node had it down: its restart waits in vain, the workload overran, both said', async () => {
    const r = await runAndAct(
      [
        '--time-limit',
        '2',
        '--seed',
        '6',
        '--nemesis',
        'kill-node',
        '--nemesis-interval',
        '1',
        '--acquire-timeout',
        '1000',
      ],
      async (_pid, runId) => {
        const node = `lockchaos-${runId}-redis-1`;
        // Once kill-node has it down (exited), it loses its network: the restart's ready()
        // then waits for its full deadline while the clients run on.
        const status = () => execFileSync('docker', ['inspect', '-f', '{{.State.Status}}', node], { encoding: 'utf8' });
        while (status().trim() !== 'exited') await new Promise((resolve) => setTimeout(resolve, 20));
        execFileSync('docker', ['network', 'disconnect', `lockchaos-${runId}`, node]);
      },
      0,
    );
    const kinds = runFolder(r.store).results.conditions.map((c: { kind: string }) => c.kind);
    expect(kinds).toContain('overran');
    expect(kinds).toContain('node-lost');
    expect(r.stdout).toMatch(/the workload took .*: a fault's stop failed after/);
    expect(r.code).toBe(3);
    expect(await leftovers(r.pid)).toEqual([]);
  });
});
