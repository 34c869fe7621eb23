/**
 * Integration tests need a Docker engine and the node image. Under CI (CI=true) a missing
 * engine is a failure, never a skip; on a developer's machine the suite is skipped with
 * the reason.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { docker, imageExists, NODE_IMAGE } from '../../src/cluster/docker-engine.js';
import { LABEL_OWNER, LABEL_RUN } from '../../src/cluster/labels.js';
import { packageRoot } from '../../src/util/paths.js';

/** A store folder of its own, for a run whose `latest` or folders a test reads. */
export const freshStore = () => mkdtempSync(join(tmpdir(), 'lockchaos-store-'));

export async function engineMissing(): Promise<string | undefined> {
  try {
    await docker().ping();
  } catch (err) {
    return `no Docker engine: ${String(err)}`;
  }
  if (!(await imageExists())) return `the node image ${NODE_IMAGE} is missing (bash docker/build-image.sh)`;
  return undefined;
}

/** Resolves to the reason to skip, or throws under CI. */
export async function requireEngine(): Promise<string | undefined> {
  const missing = await engineMissing();
  if (missing && process.env.CI) throw new Error(`CI=true and ${missing}`);
  return missing;
}

/**
 * Containers and networks carrying lockchaos labels, as "name" strings; with a runner's
 * pid, only that runner's (so tests do not see other runs on the same engine).
 */
export function leftovers(runnerPid?: number): Promise<string[]> {
  return labelled(
    LABEL_RUN,
    (labels) => runnerPid === undefined || (labels?.[LABEL_OWNER] ?? '').split(':')[1] === String(runnerPid),
  );
}

/**
 * The containers and networks of one run, by its run id (their LABEL_RUN), as "name"
 * strings: for a run whose runner pid says nothing here (it ran in a container of its own),
 * so that other runs on the same engine are not counted.
 */
export function runLeftovers(runId: string): Promise<string[]> {
  return labelled(`${LABEL_RUN}=${runId}`, () => true);
}

/** The run id a run's log names (`starting redis cluster (run 1a2b3c4d)...`), or undefined. */
export const runIdIn = (log: string): string | undefined => /\(run ([0-9a-f]+)\)/.exec(log)?.[1];

async function labelled(label: string, mine: (labels: Record<string, string> | undefined) => boolean) {
  const filters = { label: [label] };
  const containers = (await docker().listContainers({ all: true, filters })).filter((c) => mine(c.Labels));
  const networks = (await docker().listNetworks({ filters })).filter((n) => mine(n.Labels));
  return [...containers.map((c) => `container ${c.Names[0]}`), ...networks.map((n) => `network ${n.Name}`)];
}

export interface CliResult {
  pid: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

export const CLI = join(packageRoot, 'dist/src/cli/main.js');

/**
 * Runs the built CLI (npm test builds first) and collects its output and pid. `until:
 * 'exit'` resolves when the process exits, not when its output pipes close: a runner
 * killed with SIGKILL leaves worker processes (one may be SIGSTOPped by client-pause) that
 * hold the pipes until the next start sweeps them.
 */
export function lockchaos(
  args: string[],
  opts: {
    onSpawn?: (pid: number) => void;
    /** Everything on stderr so far, at each new chunk (to act on a line once it is printed). */
    onStderr?: (stderr: string) => void;
    until?: 'close' | 'exit';
    cwd?: string;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      opts.onStderr?.(stderr);
    });
    if (child.pid) opts.onSpawn?.(child.pid);
    child.on(opts.until ?? 'close', (code: number | null) => resolve({ pid: child.pid ?? 0, code, stdout, stderr }));
  });
}

export interface RunRead extends CliResult {
  /** The run folder the run wrote (store/latest). */
  dir: string;
  /** Its history.jsonl, parsed. */
  history: Array<Record<string, unknown> & { index: number; type: string; f: string; process: unknown; time: number }>;
  /** The runner's containers and networks still present after it exited. */
  left: string[];
}

/** Runs `lockchaos run ... --store store`, then reads the run folder and what it left behind. */
export async function runAndRead(store: string, args: string[]): Promise<RunRead> {
  const r = await lockchaos(['run', ...args, '--store', store]);
  const dir = realpathSync(join(store, 'latest'));
  const history = readFileSync(join(dir, 'history.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { ...r, dir, history, left: await leftovers(r.pid) };
}

/**
 * What fencing must show on any backend with tokens, under client pauses: beliefs overlap
 * (shown, not counted), yet no acknowledged write is lost and no stale token is accepted.
 */
export async function expectFencingHoldsUnderPauses(store: string, args: string[]): Promise<void> {
  const r = await runAndRead(store, [
    ...['--workload', 'lock-set', '--nemesis', 'client-pause', '--fencing', 'on'],
    ...['--time-limit', '12', '--nemesis-interval', '2', ...args],
  ]);
  expect(r.stdout).toMatch(/^shown, not counted:\n(?: {2}.*\n)* {2}mutual-exclusion\s+shown\s+\d+ overlapping holds/m);
  expect(r.stdout).not.toContain('INVALID');
  expect(r.stdout).toMatch(/lost-updates\s+valid/);
  expect(r.stdout).toMatch(
    /fencing\s+valid\s+\d+ grants with growing tokens; \d+ accepted writes, no stale token accepted/,
  );
  expect(r.code).toBe(0);
  expect(r.left).toEqual([]);
}
