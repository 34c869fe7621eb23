/**
 * A module backend is a backend everywhere: in a campaign file (its path taken from the
 * file's folder), a campaign object, a sweep and a bench; its cells are named by the
 * backend's own name. No Docker: these stop at the cells and --dry-run.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { specOfYaml } from '../../test/unit/campaign-plan.js';
import { benchCommand } from '../cli/bench.js';
import { campaignCommand } from '../cli/campaign.js';
import { sweepCommand } from '../cli/sweep.js';
import { UserError } from '../util/errors.js';
import { loadCampaign } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'lockchaos-campaign-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** What the command prints, line by line, instead of printing it. */
const printed = () => {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => out.push(line));
  return out;
};

/** A backend module in `folder`, named `name`, with its own image and fencing tokens. */
function backendModule(folder: string, name: string): string {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'backend.mjs');
  writeFileSync(
    path,
    `export const backend = {
  name: ${JSON.stringify(name)},
  description: 'a test backend',
  fencing: { supported: true },
  nodeSpecs: () => [{ name: 'kv-1', role: 'node', image: 'my-lock-service:1', port: 7000, ready: async () => {} }],
  client: async () => ({ acquire: async () => null, release: async () => true, close: async () => {} }),
};\n`,
  );
  return path;
}

const CAMPAIGN = `name: own
seeds: [1, 2]
defaults: { time-limit: 5 }
matrix:
  - backend: ./backend.mjs
    fencing: on
    expect: valid
`;

describe('a module backend in a campaign', () => {
  it("is taken from the campaign file's folder, whatever the current folder, and named by its own name", async () => {
    const folder = join(dir, 'team', 'ci');
    const path = backendModule(folder, 'my-lock-service');
    writeFileSync(join(folder, 'nightly.yaml'), CAMPAIGN);
    const { allCells: cells } = await loadCampaign(join(folder, 'nightly.yaml'));
    expect(cells).toHaveLength(2);
    expect(cells[0]?.backend).toBe('./backend.mjs');
    expect(cells[0]?.config).toMatchObject({ backend: './backend.mjs', backendModule: path, fencing: true });
    expect(cells[0]?.config.name).toBe('my-lock-service-lock-set-none-fenced');
    expect(cells[0]?.id).toBe('my-lock-service/lock-set/none/fenced/seed-1');
  });

  it('a campaign object takes it from the current folder; a path that is not there is one line', async () => {
    const path = backendModule(join(dir, 'object'), 'object-lock');
    const { cells } = await loadCampaign({
      seeds: [1],
      matrix: [{ backend: path, nemesis: 'client-pause', fencing: 'on', expect: 'valid' }],
    });
    expect(cells[0]?.config.backendModule).toBe(path);
    const missing = join(dir, 'missing');
    mkdirSync(missing, { recursive: true });
    writeFileSync(join(missing, 'c.yaml'), CAMPAIGN);
    await expect(loadCampaign(join(missing, 'c.yaml'))).rejects.toThrow(
      /^.*c\.yaml: cannot load backend module .*missing\/backend\.mjs: /,
    );
  });

  it('is refused, naming the fix, when validated before it was loaded (a library caller)', () => {
    expect(() => specOfYaml(CAMPAIGN.replace('./backend.mjs', './never-loaded.mjs'), join(dir, 'x.yaml'))).toThrow(
      /matrix\[0\]: cell .*: backend module .*never-loaded\.mjs is not loaded: .*await loadBackend\(path\) first/,
    );
  });

  it('an unknown name says a module path is also taken', () => {
    expect(() => specOfYaml(CAMPAIGN.replace('./backend.mjs', 'mylock'))).toThrow(
      /matrix\[0\]\.backend: unknown backend "mylock": expected one of redis\|.*postgres, or a module's path \(\.\/my-lock\.mjs\)$/,
    );
  });
});

describe('a module backend in sweep and bench', () => {
  it('sweep --backend PATH --dry-run lists its points under the backend own name', async () => {
    const path = backendModule(join(dir, 'sweep'), 'swept-lock');
    const out = printed();
    expect(await sweepCommand(['--backend', path, '--pause-ttl', '0.5,1.5', '--trials', '1', '--dry-run'])).toBe(0);
    expect(out[0]).toBe('sweep sweep-swept-lock-unfenced: 2 points x 1 trials = 2 runs');
  });

  it('bench --backend PATH,redis --dry-run', async () => {
    const path = backendModule(join(dir, 'bench'), 'benched-lock');
    const out = printed();
    expect(await benchCommand(['--backend', `${path},redis`, '--concurrency', '1,4', '--dry-run'])).toBe(0);
    expect(out[0]).toBe('bench bench: 8 points of 6 s');
    expect(out.filter((l) => l.includes(path))).toHaveLength(4);
  });
});

describe('campaign --dry-run of a file that is code', () => {
  it('imports no module backend: one that writes a marker on import leaves none, and it says what it did not check', async () => {
    const folder = join(dir, 'dry-run');
    mkdirSync(folder, { recursive: true });
    const marker = join(folder, 'imported');
    writeFileSync(
      join(folder, 'backend.mjs'),
      `import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(marker)}, 'this module ran');
export const backend = {
  name: 'marker', description: 'writes a file on import', fencing: { supported: true },
  nodeSpecs: () => [{ name: 'kv-1', role: 'node', image: 'x:1', port: 7000, ready: async () => {} }],
  client: async () => ({ acquire: async () => null, release: async () => true, close: async () => {} }),
};\n`,
    );
    writeFileSync(join(folder, 'c.yaml'), CAMPAIGN);
    const out = printed();
    expect(await campaignCommand([join(folder, 'c.yaml'), '--dry-run'])).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(out[0]).toMatch(/: 2 of 2 cells$/);
    expect(out[1]).toMatch(/^ {3}1 {2}\.\/backend\.mjs\/lock-set\/none\/fenced\/seed-1 {2}expect valid/);
    expect(out.at(-1)).toMatch(
      /^not checked: module backend \.\/backend\.mjs not imported \(a dry run runs no code\): its options, fencing and faults not checked$/,
    );
  });

  it('refuses a module path that is not a file, in one line, still importing nothing', async () => {
    const folder = join(dir, 'dry-run-missing');
    mkdirSync(join(folder, 'backend.mjs'), { recursive: true }); // a folder of that name
    writeFileSync(join(folder, 'c.yaml'), CAMPAIGN);
    const run = campaignCommand([join(folder, 'c.yaml'), '--dry-run']);
    await expect(run).rejects.toThrow(UserError);
    await expect(run).rejects.toThrow(/c\.yaml: matrix\[0\]\.backend: \.\/backend\.mjs: no such module file \(.*\)$/);
  });
});
