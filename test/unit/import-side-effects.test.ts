/**
 * Importing lockchaos changes nothing in the importing process's environment: a team's own
 * testcontainers tests in the same process keep their reaper (Ryuk): lockchaos creates its
 * containers through dockerode and sets nothing (cluster.ts). Runs node
 * on the compiled package (npm test builds it) from a project that depends on it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const project = mkdtempSync(join(tmpdir(), 'lockchaos-env-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
mkdirSync(join(project, 'node_modules'));
symlinkSync(root, join(project, 'node_modules', 'lockchaos'));

/** The environment variables an import of `entry` added, changed or removed. */
function envChanges(entry: string): string[] {
  const script = `
const before = { ...process.env };
await import(${JSON.stringify(entry)});
const keys = new Set([...Object.keys(before), ...Object.keys(process.env)]);
console.log(JSON.stringify([...keys].filter((k) => before[k] !== process.env[k])));
console.log(String(process.env.TESTCONTAINERS_RYUK_DISABLED));`;
  const { TESTCONTAINERS_RYUK_DISABLED: _unset, ...env } = process.env;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8', env });
  expect(r.stderr).toBe('');
  const [changes, ryuk] = r.stdout.trim().split('\n');
  expect(ryuk).toBe('undefined');
  return JSON.parse(changes as string);
}

describe("importing lockchaos leaves the user's environment alone", () => {
  it.each(['lockchaos', 'lockchaos/check'])("import '%s' sets no environment variable", (entry) => {
    expect(envChanges(entry)).toEqual([]);
  });
});
