/**
 * npm test's last step: vitest's two projects side by side, in two vitest processes. The
 * integration files run one at a time (real containers on a 2-core machine) and spend most
 * of their time waiting on servers and faults; the unit files compute. One after the other
 * they took 1490 s of a quiet CI run, 115 s of it the unit files on both cores. Vitest runs
 * projects of one group with one worker count, so "integration one file at a time, unit on
 * the other core" takes two processes: the unit project's with one worker.
 *
 * The arguments go to both. A JSON report (`--outputFile.json=F`) is written per process
 * beside F, then merged into F, the one file CI reads. Given a project or a file to run
 * (as vitest's own parser reads the arguments: vitest-args.ts), it is one plain
 * `vitest run`. Exit: the first non-zero of the two.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { choosesFiles } from './vitest-args.js';

const args = process.argv.slice(2);
const vitest = 'node_modules/.bin/vitest';

/** A flag's value given as `--flag=v` or `--flag v`. */
const flagValue = (flag: string): string | undefined => {
  for (const [i, a] of args.entries()) {
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
    if (a === flag) return args[i + 1];
  }
  return undefined;
};

/** vitest run with these arguments; each line of its output prefixed when `tag` is given. */
function vitestRun(runArgs: string[], tag?: string): Promise<number> {
  const child = spawn(vitest, ['run', ...runArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    // Whole lines only: two processes' output interleaves by line, never inside one.
    createInterface({ input: from }).on('line', (line) => to.write(`${tag ? `[${tag}] ` : ''}${line}\n`));
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 130 : 1))));
}

type Report = {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests?: number;
  numTotalTestSuites: number;
  numPassedTestSuites: number;
  numFailedTestSuites: number;
  numPendingTestSuites: number;
  startTime: number;
  success: boolean;
  testResults: unknown[];
};

const COUNTS = [
  'numTotalTests',
  'numPassedTests',
  'numFailedTests',
  'numPendingTests',
  'numTodoTests',
  'numTotalTestSuites',
  'numPassedTestSuites',
  'numFailedTestSuites',
  'numPendingTestSuites',
] as const;

/** The two processes' reports as one; a report missing (a process that died) is a failure. */
function mergeReports(files: string[], into: string): void {
  const reports = files.map((f) => (existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as Report) : undefined));
  const present = reports.filter((r): r is Report => r !== undefined);
  const merged: Report = { ...(present[0] as Report), testResults: present.flatMap((r) => r.testResults) };
  for (const key of COUNTS) merged[key] = present.reduce((sum, r) => sum + (r[key] ?? 0), 0);
  merged.startTime = Math.min(...present.map((r) => r.startTime));
  merged.success = present.length === files.length && present.every((r) => r.success);
  if (present.length < files.length) merged.numFailedTests += 1;
  writeFileSync(into, JSON.stringify(merged));
  for (const f of files) rmSync(f, { force: true });
}

async function main(): Promise<number> {
  if (choosesFiles(args)) return vitestRun(args);
  const json = flagValue('--outputFile.json');
  // Each process its own report beside the one asked for: `--outputFile.json=F` or `... F`.
  const forProject = (project: string) => [
    '--project',
    project,
    ...args.map((a, i) => {
      if (json === undefined) return a;
      if (a === `--outputFile.json=${json}`) return `${a}.${project}`;
      return args[i - 1] === '--outputFile.json' ? `${a}.${project}` : a;
    }),
    ...(project === 'unit' ? ['--maxWorkers=1'] : []),
  ];
  const codes = await Promise.all(['integration', 'unit'].map((name) => vitestRun(forProject(name), name)));
  if (json !== undefined) mergeReports([`${json}.integration`, `${json}.unit`], json);
  return codes.find((c) => c !== 0) ?? 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`test-side-by-side: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
