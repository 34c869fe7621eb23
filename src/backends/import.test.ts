import { describe, expect, it } from 'vitest';
import { BUILT_IN_IMPORTS, importBackend } from './import.js';
import { BACKENDS } from './index.js';

describe('importBackend (a worker loads only its own backend)', () => {
  it('knows every built-in backend, and imports the same object the registry holds', async () => {
    expect(Object.keys(BACKENDS)).toEqual(Object.keys(BUILT_IN_IMPORTS));
    expect(Object.keys(BACKENDS)).toContain('redis');
    for (const name of Object.keys(BACKENDS)) expect(await importBackend(name)).toBe(BACKENDS[name]);
    expect(await importBackend('no-such-backend')).toBeUndefined();
  });
});
