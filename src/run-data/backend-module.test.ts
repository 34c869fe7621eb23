import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBackend } from '../backends/index.js';
import { UserError } from '../util/errors.js';
import { DEFAULTS } from './config.js';
import { resolveRun, validateConfig } from './resolve.js';

const dir = mkdtempSync(join(tmpdir(), 'lockchaos-module-'));
const module = (name: string, nodeSpecs: string, prelude = '') => {
  const path = join(dir, name);
  writeFileSync(
    path,
    `${prelude}\nexport default { name: 'm', description: 'm', fencing: { supported: true }, nodeSpecs: ${nodeSpecs}, client: async () => ({}) };\n`,
  );
  return path;
};
const config = (backend: string) => ({ ...DEFAULTS, name: 't', seed: 1, backend });

describe('a backend module that cannot work is one line, exit 3', () => {
  it('nodeSpecs that throws', async () => {
    const path = module('throws.mjs', "() => { throw new Error('no specs today'); }");
    await loadBackend(path);
    expect(() => validateConfig(config(path))).toThrow(UserError);
    expect(() => validateConfig(config(path))).toThrow(
      /^backend m: nodeSpecs\(\{ nodes: undefined \}\) threw: no specs today \(see docs\/adding-a-backend.md\)$/,
    );
  });

  it('nodeSpecs that returns nothing, or an empty list', async () => {
    const nothing = module('nothing.mjs', '() => undefined');
    const empty = module('empty.mjs', '() => []');
    await loadBackend(nothing);
    await loadBackend(empty);
    expect(() => validateConfig(config(nothing))).toThrow(
      /nodeSpecs\(\{ nodes: undefined \}\) returned nothing: return a list of node specs/,
    );
    expect(() => validateConfig(config(empty))).toThrow(/returned an empty list/);
  });

  it('a module whose top-level await never settles: a deadline, not exit 0 with no output', async () => {
    const path = module('hangs.mjs', '() => []', 'await new Promise(() => {});');
    await expect(loadBackend(path, undefined, 300)).rejects.toThrow(
      /^backend module .*hangs\.mjs did not finish loading in 0\.3 s \(a top-level await that never settles\?\)/,
    );
  });
});

describe('a backend module held to the contract', () => {
  it('a backend written as a class keeps its methods and private fields', async () => {
    const path = join(dir, 'class.mjs');
    writeFileSync(
      path,
      `class TeamLock {
  #port = 7000;
  name = 'team';
  description = 'a class';
  fencing = { supported: true };
  nodeSpecs() { return [{ name: 'n1', role: 'node', ready: async () => {} }]; }
  port() { return this.#port; }
  async client() { return { port: this.port() }; }
}
export const backend = new TeamLock();\n`,
    );
    const backend = await loadBackend(path);
    if (!backend) throw new Error('not loaded');
    const opts = { requestTimeoutMs: 1000, clientId: 'w0' } as unknown as Parameters<typeof backend.client>[1];
    expect(await backend.client([], opts)).toEqual({ port: 7000 });
    // A method read twice is the same function, as on the object itself.
    expect(backend.client).toBe(backend.client);
    const resolved = resolveRun(config(path));
    expect(resolved.nodeSpecs.map((s) => s.name)).toContain('n1');
  });
});
