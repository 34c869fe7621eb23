import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../util/paths.js';
import { aimedFaults } from './aimed-faults.js';
import { FAULT_KIND_MODULES } from './kinds/index.js';

describe('the code points a fault kind aims at', () => {
  it("names the in-acquire point by the backend's own name", () => {
    expect(aimedFaults([{ kind: 'client-pause', aim: 'in-acquire' }], 'after-votes')).toEqual([
      { kind: 'client-pause', point: 'after-votes' },
    ]);
    expect(aimedFaults([{ kind: 'client-pause', aim: 'in-acquire' }])).toEqual([]);
    expect(aimedFaults([{ kind: 'client-pause', aim: 'holder' }], 'after-votes')).toEqual([
      { kind: 'client-pause', point: 'in-hold', counts: false },
    ]);
  });

  it('is what each kind declares: a client at a point or holding, a request on the wire, a node only at a point', () => {
    expect(
      aimedFaults([
        { kind: 'client-kill', aim: 'at=before-release' },
        { kind: 'client-kill', aim: 'holder' },
        { kind: 'wire', aim: 'SET', mode: 'drop' },
        { kind: 'partition', aim: 'majority' },
        { kind: 'pause-node', aim: 'leader', mode: 'while-held' },
        { kind: 'client-clock', aim: 'backward' },
      ]),
    ).toEqual([
      { kind: 'client-kill', point: 'before-release' },
      { kind: 'client-kill', point: 'in-hold', counts: false },
      { kind: 'wire', point: 'wire:SET', mode: 'drop' },
    ]);
    const aiming = FAULT_KIND_MODULES.filter((k) => k.aimsAt !== undefined).map((k) => k.name);
    expect(aiming).toEqual(['client-pause', 'pause-node', 'kill-node', 'client-kill', 'wire']);
  });

  it('checkers/coverage.ts names no fault kind: the kinds declare where they aim', () => {
    const source = readFileSync(join(packageRoot, 'checkers', 'coverage.ts'), 'utf8');
    const named = FAULT_KIND_MODULES.map((k) => k.name).filter((name) => source.includes(`'${name}'`));
    expect(named).toEqual([]);
  });
});
