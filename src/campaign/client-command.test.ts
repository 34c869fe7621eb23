import { describe, expect, it } from 'vitest';
import { expandCells } from './matrix.js';
import { parseCampaign } from './spec.js';

describe('a campaign with a client program', () => {
  it('runs it from the campaign file folder, or from the folder the file names, relative to it', () => {
    const text = (dir: string) => `
name: clients
seeds: [1]
defaults: { client-command: python3 client.py${dir} }
matrix:
  - backend: redis
    nemesis: client-pause
    fencing: off
    expect: invalid
`;
    const [plain] = expandCells(parseCampaign(text(''), '/team/ci/nightly.yaml', '/team/ci'));
    expect(plain?.config).toMatchObject({ clientCommand: 'python3 client.py', clientDir: '/team/ci' });
    const [named] = expandCells(parseCampaign(text(', client-dir: ../lock'), '/team/ci/nightly.yaml', '/team/ci'));
    expect(named?.config.clientDir).toBe('/team/lock');
  });
});
