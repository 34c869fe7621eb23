/**
 * A module backend that misbehaves. Its node spec's ready(): one that never settles hung the
 * cluster start (the first Ctrl-C did nothing, the second left 2 containers and a network);
 * one that throws was a stack trace. Now: one line naming the module, exit 3; Ctrl-C while
 * it waits ends the run at once, exit 130, nothing left.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { CLI, type CliResult, freshStore, leftovers, lockchaos, requireEngine } from './support.js';

const skip = await requireEngine();
const store = freshStore();
const dir = mkdtempSync(join(tmpdir(), 'lockchaos-mod-'));

/** A module `file` that is the example backend with `fields` (JS source) in place of its own. */
function exampleWith(file: string, fields: string): string {
  const path = join(dir, file);
  const example = join(packageRoot, 'examples/backends/counter-token-redis.mjs');
  const name = JSON.stringify(file.replace('.mjs', ''));
  writeFileSync(
    path,
    `import { backend as base } from ${JSON.stringify(example)};\nexport const backend = { ...base, name: ${name}, ${fields} };\n`,
  );
  return path;
}

/** The example backend, its node's ready() replaced by `ready` (JS source), with `extra` fields. */
const moduleWith = (file: string, ready: string, extra = '') =>
  exampleWith(file, `nodeSpecs: (o) => base.nodeSpecs(o).map((s) => ({ ...s, ready: ${ready}${extra} }))`);

describe.skipIf(skip)("a module backend's grant that the history cannot hold", () => {
  it('a NaN token: the acquire is refused (info, naming the field), the run is an error naming the backend', async () => {
    const path = exampleWith(
      'nan-token.mjs',
      `client: async (nodes, opts) => {
        const c = await base.client(nodes, opts);
        const acquire = async (lock, o) => { const g = await c.acquire(lock, o); return g && { ...g, token: Number.NaN }; };
        return { ...c, acquire };
      }`,
    );
    const r = await lockchaos(['run', '--backend', path, '--fencing', 'on', '--time-limit', '3', '--store', store]);
    expect(r.stdout).toMatch(
      /did not run as configured: backend nan-token returned \d+ grants? the client refused, first at op #\d+: token is NaN, not a finite number \(recorded as info\): make its acquire return validityMs as a number of ms, 0 or more, a token \(if any\) as a whole number from 0 to 2\^53-1, and votes as a finite number/,
    );
    expect(r.code).toBe(3);
    const history = readFileSync(join(realpathSync(join(store, 'latest')), 'history.jsonl'), 'utf8');
    expect(history).not.toMatch(/"token":null/);
    expect(history).toMatch(/"type":"info","f":"acquire".*"error":"refused grant: token is NaN, not a finite number"/);
    expect(await leftovers(r.pid)).toEqual([]);
  });
});

describe.skipIf(skip)("a module backend's ready()", () => {
  it('that never settles: one line naming the module when its deadline passes, exit 3, torn down', async () => {
    const mod = moduleWith('hangs.mjs', '() => new Promise(() => {})', ', readyTimeoutMs: 2000');
    const r = await lockchaos(['run', '--backend', mod, '--time-limit', '2', '--store', store]);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `lockchaos run: backend hangs: node 'redis-1' ready() did not settle in 2 s: make it resolve once the server answers, or throw (see docs/adding-a-backend.md)`,
    );
    expect(r.code).toBe(3);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('that throws: one line, exit 3, no stack', async () => {
    const mod = moduleWith('throws.mjs', "async () => { throw new Error('no server here'); }");
    const r = await lockchaos(['run', '--backend', mod, '--time-limit', '2', '--store', store]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `lockchaos run: backend throws: node 'redis-1' ready() threw: no server here (see docs/adding-a-backend.md)`,
    );
    expect(r.code).toBe(3);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('Ctrl-C while it waits ends the run at once: exit 130, containers and network removed', async () => {
    const mod = moduleWith('waits.mjs', '() => new Promise(() => {})');
    const child = spawn(process.execPath, [CLI, 'run', '--backend', mod, '--time-limit', '2', '--store', store], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let signalled = false;
    child.stderr.on('data', async (d) => {
      stderr += d;
      if (!signalled && /starting .* cluster/.test(stderr)) {
        signalled = true;
        // Its containers exist and its ready() is waiting.
        while ((await leftovers(child.pid)).length < 3) await new Promise((resolve) => setTimeout(resolve, 100));
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const r: CliResult = { pid: child.pid ?? 0, code, stdout: '', stderr };
    // Ended by the signal while ready() waited, not by its 60 s deadline, which says so.
    expect(r.stderr).not.toMatch(/did not settle/);
    expect(r.stderr).toMatch(/SIGINT: stopping the run/);
    expect(r.stderr).toMatch(/lockchaos run: interrupted \(SIGINT\) before the workload began/);
    expect(r.code).toBe(130);
    expect(await leftovers(r.pid)).toEqual([]);
  });
});
