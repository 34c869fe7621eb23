/**
 * `lockchaos check` and the 'lockchaos/check' entry load the history readers, the models and
 * the search, and none of the Docker and client libraries (about 100 MiB). Each case runs
 * node on the compiled code (npm test builds it) with a hook that logs every module resolved.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'lockchaos-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAVY = ['dockerode', 'ioredis', 'etcd3', 'zookeeper', 'cockatiel', 'ssh2'];
const history = join(dir, 'history.jsonl');
writeFileSync(
  history,
  '{"type":"invoke","f":"write","process":0,"value":1}\n{"type":"ok","f":"write","process":0,"value":1}\n',
);

/** Runs node with `args` and returns the packages of node_modules it loaded, and its stdout. */
function loaded(args: string[]): { packages: string[]; stdout: string } {
  const log = join(dir, `modules-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const register = join(root, 'test/unit/module-log/register.mjs');
  const child = spawnSync(process.execPath, ['--import', register, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, LOCKCHAOS_MODULE_LOG: log },
  });
  expect(child.stderr).toBe('');
  const packages = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (m) packages.add(m[1]);
  }
  return { packages: [...packages].sort(), stdout: child.stdout };
}

describe('what checking loads', () => {
  it('the main entry loads the Docker and client libraries (so the hook sees them)', () => {
    const { packages } = loaded(['--input-type=module', '-e', "await import('./dist/src/index.js');"]);
    expect(packages).toEqual(expect.arrayContaining(['dockerode', 'ioredis']));
  });

  it("'lockchaos/check' loads none of them, and checks", () => {
    const script = `const { check, readHistoryFile } = await import('./dist/src/check.js');
      console.log(check(readHistoryFile(${JSON.stringify(history)}).history, 'register').valid);`;
    const { packages, stdout } = loaded(['--input-type=module', '-e', script]);
    expect(stdout.trim()).toBe('true');
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('lockchaos check loads none of them', () => {
    const { packages, stdout } = loaded(['dist/src/cli/main.js', 'check', history]);
    expect(stdout).toMatch(/^valid /);
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });
});
