import { describe, expect, it } from 'vitest';
import { specOfYaml } from '../../test/unit/campaign-plan.js';
import { expandCells } from './matrix.js';

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
    const [plain] = expandCells(specOfYaml(text(''), '/team/ci/nightly.yaml', '/team/ci'));
    expect(plain?.config).toMatchObject({ clientCommand: 'python3 client.py', clientDir: '/team/ci' });
    const [named] = expandCells(specOfYaml(text(', client-dir: ../lock'), '/team/ci/nightly.yaml', '/team/ci'));
    expect(named?.config.clientDir).toBe('/team/lock');
  });

  it('names the client in the cell id and the run name, so two clients of one backend are two cells', () => {
    const cells = expandCells(
      specOfYaml(
        `
name: clients
seeds: [1]
matrix:
  - backend: redis
    nemesis: client-pause
    fencing: off
    expect: invalid
    options: { client-command: python3 clients/redis-py-lock.py }
  - backend: redis
    nemesis: client-pause
    fencing: off
    expect: invalid
    options: { client-command: node clients/semaphore.mjs --verbose }
`,
        '/team/ci/nightly.yaml',
        '/team/ci',
      ),
    );
    expect(cells.map((c) => c.id)).toEqual([
      'redis+redis-py-lock/lock-set/client-pause/unfenced/seed-1',
      'redis+semaphore/lock-set/client-pause/unfenced/seed-1',
    ]);
    expect(cells.map((c) => c.config.name)).toEqual([
      'redis+redis-py-lock-lock-set-client-pause-unfenced',
      'redis+semaphore-lock-set-client-pause-unfenced',
    ]);
  });

  it('refuses two entries that make the same cell, naming both', () => {
    const entry = `
  - backend: redis
    nemesis: none
    fencing: off
    expect: valid`;
    expect(() => expandCells(specOfYaml(`name: twice\nseeds: [1]\nmatrix:${entry}${entry}\n`, 'c.yaml', '/'))).toThrow(
      /matrix\[1\].*cell redis\/lock-set\/none\/unfenced\/seed-1 is also made by matrix\[0\]: drop one, or give an entry a label/,
    );
  });
});
