import { describe, expect, it } from 'vitest';
import { backendProblem } from './module.js';

const backend = (extra: Record<string, unknown> = {}) => ({
  name: 'mine',
  nodeSpecs: () => [],
  client: async () => ({}),
  fencing: { supported: true },
  ...extra,
});

describe('backendProblem', () => {
  it('takes a backend with or without a clientLogin of strings', () => {
    expect(backendProblem(backend())).toBeUndefined();
    expect(backendProblem(backend({ clientLogin: { user: 'app', database: 'locks' } }))).toBeUndefined();
    expect(backendProblem(backend({ clientLogin: { user: 'app', password: 's3cret' } }))).toBeUndefined();
  });

  it('refuses a clientLogin a client program could not be given as JSON strings', () => {
    for (const clientLogin of [
      'postgres',
      null,
      [],
      { database: 'x' },
      { user: 1 },
      { user: 'a', password: () => 'x' },
      { user: 'a', role: 'admin' },
      { user: 'a'.repeat(257) },
    ]) {
      expect(backendProblem(backend({ clientLogin })), JSON.stringify(clientLogin)).toMatch(/^clientLogin must be/);
    }
  });
});
