/**
 * Ctrl-C acts at every phase, before what the phase waits on ends it (each test asserts the
 * run ended by the signal, not by the phase's own deadline), and the run folder says so. On
 * f307d98 a SIGINT the moment "workload done" printed was ignored (verdict valid, exit 0);
 * one during a module's ready() that never settles let the process go only when its 60 s
 * deadline ended; one while a client program did not answer its init waited for the
 * clients' 60 s; and `report` on a folder interrupted at start said the runner "was killed
 * or failed", exit 2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { CLI, freshStore, leftovers, lockchaos, requireEngine } from './support.js';

const skip = await requireEngine();
const store = freshStore();
const BROKEN = `node ${join(packageRoot, 'test/fixtures/clients/broken.mjs')}`;
/**
 * `lockchaos run ARGS`, SIGINT once stderr matches `when`: its exit, its output, and what
 * it said on stderr after the signal (what ended the phase it was in).
 */
function interruptWhen(args: string[], when: RegExp) {
  return new Promise<{ pid: number; code: number | null; stdout: string; stderr: string; afterSignal: string }>(
    (resolve) => {
      const child = spawn(process.execPath, [CLI, 'run', '--store', store, '--concurrency', '2', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      // How much of stderr was written when the signal went; undefined until it has.
      let saidBefore: number | undefined;
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => {
        stderr += d;
        if (saidBefore === undefined && when.test(stderr)) {
          saidBefore = stderr.length;
          child.kill('SIGINT');
        }
      });
      child.on('exit', (code) =>
        resolve({ pid: child.pid ?? 0, code, stdout, stderr, afterSignal: stderr.slice(saidBefore ?? stderr.length) }),
      );
    },
  );
}

const latestResults = () =>
  JSON.parse(readFileSync(join(realpathSync(join(store, 'latest')), 'results.json'), 'utf8')) as {
    valid: unknown;
    conditions: { kind: string; message: string; whileChecking?: boolean }[];
  };

describe.skipIf(skip)('Ctrl-C at every phase of a run', () => {
  it('the moment "workload done" prints: checking ends, the folder says interrupted while checking, exit 130', async () => {
    const r = await interruptWhen(['--backend', 'redis', '--time-limit', '3'], /workload done/);
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/verdict: unknown .*interrupted \(SIGINT\) while checking/);
    expect(latestResults().conditions).toEqual([expect.objectContaining({ kind: 'interrupted', whileChecking: true })]);
    // The workload was complete: report checks it and gives the verdict.
    const report = await lockchaos(['report', realpathSync(join(store, 'latest'))]);
    expect(report.stdout).toMatch(/verdict: valid/);
    expect(report.code).toBe(0);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('during the cluster start: exit 130, and report on the folder says interrupted, exit 130', async () => {
    const r = await interruptWhen(['--backend', 'redis', '--time-limit', '3'], /starting redis cluster/);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/lockchaos run: interrupted \(SIGINT\) before the workload began/);
    expect(latestResults()).toMatchObject({ valid: 'unknown', conditions: [{ kind: 'interrupted' }] });
    const report = await lockchaos(['report', realpathSync(join(store, 'latest'))]);
    expect(report.stdout).toMatch(/interrupted \(SIGINT\) before the workload began/);
    expect(report.stdout).not.toMatch(/killed or failed/);
    expect(report.code).toBe(130);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it("during a module's ready() that never settles (its deadline 60 s): the process ends at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-mod-'));
    const mod = join(dir, 'waits.mjs');
    const example = join(packageRoot, 'examples/backends/counter-token-redis.mjs');
    writeFileSync(
      mod,
      `import { backend as base } from ${JSON.stringify(example)};\nexport const backend = { ...base, name: 'waits', nodeSpecs: (o) => base.nodeSpecs(o).map((s) => ({ ...s, ready: () => { console.error('ready() waits'); return new Promise(() => {}); } })) };\n`,
    );
    const r = await interruptWhen(['--backend', mod, '--time-limit', '3'], /ready\(\) waits/);
    expect(r.code).toBe(130);
    // Ended by the signal while ready() waited, not by its 60 s deadline, which says so.
    expect(r.afterSignal).toMatch(/SIGINT/);
    expect(r.afterSignal).not.toMatch(/did not settle/);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('while the clients connect (a client program that never answers init): exit 130 at once', async () => {
    const r = await interruptWhen(
      ['--backend', 'redis', '--time-limit', '3', '--client-command', `${BROKEN} silent`],
      /cluster ready/,
    );
    expect(r.code).toBe(130);
    // Ended by the signal while the clients connected, not by the program's init deadline
    // or the workers' (each of which says so).
    expect(r.afterSignal).toMatch(/SIGINT/);
    expect(r.afterSignal).not.toMatch(/broke at its start|not connected after/);
    expect(latestResults().conditions).toEqual([expect.objectContaining({ kind: 'interrupted' })]);
    expect(await leftovers(r.pid)).toEqual([]);
  });
});
