/**
 * A module backend's path, as given and resolved: test.json records both, and a replay or
 * a schedule finds the module from any folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBackend } from '../backends/index.js';
import { configFromArgs, loadReplayConfig } from '../cli/run.js';
import { DEFAULTS } from './config.js';
import { prepareRun } from './prepare.js';
import { locatePaths, testName } from './resolve.js';
import { parseTestJson, testJsonText } from './run-folder.js';

const dir = mkdtempSync(join(tmpdir(), 'lockchaos-module-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const folder = join(dir, 'team');
mkdirSync(folder, { recursive: true });
const path = join(folder, 'backend.mjs');
writeFileSync(
  path,
  `export default { name: 'team-lock', description: 't', fencing: { supported: true },
  nodeSpecs: () => [{ name: 'n1', role: 'node', ready: async () => {} }],
  client: async () => ({}) };\n`,
);

describe('a module backend as given and as resolved', () => {
  it('run: --backend PATH is resolved from the current folder; the run names it once loaded', async () => {
    const given = relative(process.cwd(), path);
    const parsed = configFromArgs(['--backend', given, '--seed', '1']);
    if (parsed === 'help') throw new Error('unreachable');
    expect(parsed.config).toMatchObject({ backend: given, name: '' });
    expect((await prepareRun(parsed.config)).config).toMatchObject({
      backend: given,
      backendModule: path,
      name: 'team-lock-lock-set-none-unfenced',
    });
  });

  it("is named by the backend's own name once loaded", async () => {
    const c = { ...DEFAULTS, backend: './backend.mjs', backendModule: path };
    await loadBackend(path);
    expect(testName(c)).toBe('team-lock-lock-set-none-unfenced');
  });

  it('test.json records both; a replay from a folder where the given path means nothing finds it', async () => {
    await loadBackend(path);
    const config = { ...DEFAULTS, name: 'x', seed: 3, backend: './backend.mjs', backendModule: path, fencing: true };
    const run = join(dir, 'run');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'test.json'), testJsonText(config));
    expect(parseTestJson(testJsonText(config), 'test.json').config).toMatchObject({
      backend: './backend.mjs',
      backendModule: path,
    });
    // The current folder (the checkout) has no ./backend.mjs: the recorded path is used.
    expect(await loadReplayConfig(run)).toMatchObject({ backend: './backend.mjs', backendModule: path, seed: 3 });
  });

  it('a recorded path that is gone falls back to the path as given, from here; neither there is one line', async () => {
    const moved = { backend: relative(process.cwd(), path), backendModule: join(dir, 'gone', 'backend.mjs') };
    expect(locatePaths(moved).backendModule).toBe(path);
    const lost = join(dir, 'lost');
    mkdirSync(lost, { recursive: true });
    writeFileSync(
      join(lost, 'test.json'),
      testJsonText({ ...DEFAULTS, name: 'x', seed: 1, backend: './nowhere.mjs', backendModule: '/nowhere/x.mjs' }),
    );
    await expect(loadReplayConfig(lost)).rejects.toThrow(
      /^--replay: '.*test\.json': cannot load backend module \/nowhere\/x\.mjs: /,
    );
  });

  it('--schedule of a module run with another --backend: the schedule’s module is not kept', () => {
    const run = join(dir, 'scheduled');
    mkdirSync(run, { recursive: true });
    writeFileSync(
      join(run, 'test.json'),
      testJsonText({ ...DEFAULTS, name: 'x', seed: 1, backend: './backend.mjs', backendModule: path, schedule: [] }),
    );
    const same = configFromArgs(['--schedule', run]);
    const other = configFromArgs(['--schedule', run, '--backend', 'redis']);
    if (same === 'help' || other === 'help') throw new Error('unreachable');
    expect(same.config.backendModule).toBe(path);
    expect(other.config).not.toHaveProperty('backendModule');
  });

  it('--backend-module with a built-in backend is refused in one line', async () => {
    const { validateConfig } = await import('./resolve.js');
    expect(() => validateConfig({ ...DEFAULTS, name: 'x', seed: 1, backend: 'redis', backendModule: path })).toThrow(
      /^--backend-module is where a module backend is: give --backend a module's path, or leave --backend-module out$/,
    );
  });
});
