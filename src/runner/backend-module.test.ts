import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../util/errors.js';
import { loadBackendModule } from './backend-module.js';
import { DEFAULTS } from './config.js';
import { validateConfig } from './resolve.js';

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
    await loadBackendModule(path);
    expect(() => validateConfig(config(path))).toThrow(UserError);
    expect(() => validateConfig(config(path))).toThrow(
      /^backend m: nodeSpecs\(\{ nodes: undefined \}\) threw: no specs today \(see README, "Adding a lock backend"\)$/,
    );
  });

  it('nodeSpecs that returns nothing, or an empty list', async () => {
    const nothing = module('nothing.mjs', '() => undefined');
    const empty = module('empty.mjs', '() => []');
    await loadBackendModule(nothing);
    await loadBackendModule(empty);
    expect(() => validateConfig(config(nothing))).toThrow(
      /nodeSpecs\(\{ nodes: undefined \}\) returned nothing: return a list of node specs/,
    );
    expect(() => validateConfig(config(empty))).toThrow(/returned an empty list/);
  });

  it('a module whose top-level await never settles: a deadline, not exit 0 with no output', async () => {
    const path = module('hangs.mjs', '() => []', 'await new Promise(() => {});');
    await expect(loadBackendModule(path, 300)).rejects.toThrow(
      /^backend module .*hangs\.mjs did not finish loading in 0\.3 s \(a top-level await that never settles\?\)/,
    );
  });
});
