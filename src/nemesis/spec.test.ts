import { describe, expect, it } from 'vitest';
import { UserError } from '../util/errors.js';
import { parseNemesisSpec } from './spec.js';

describe('--nemesis spec', () => {
  it('reads none, single kinds, targets and compositions', () => {
    expect(parseNemesisSpec('none')).toEqual([]);
    expect(parseNemesisSpec('client-pause')).toEqual([{ kind: 'client-pause', target: 'holder' }]);
    expect(parseNemesisSpec('pause-node:leader, partition:majorities-ring,kill-node')).toEqual([
      { kind: 'pause-node', target: 'leader' },
      { kind: 'partition', target: 'majorities-ring' },
      { kind: 'kill-node', target: 'one' },
    ]);
  });

  it('reads a clock direction, forward unless told, and the client clock', () => {
    expect(parseNemesisSpec('clock')).toEqual([{ kind: 'clock', target: 'minority', direction: 'forward' }]);
    expect(parseNemesisSpec('clock:one:backward')).toEqual([{ kind: 'clock', target: 'one', direction: 'backward' }]);
    expect(parseNemesisSpec('clock:all:strobe')).toEqual([{ kind: 'clock', target: 'all', direction: 'strobe' }]);
    expect(parseNemesisSpec('client-clock')).toEqual([{ kind: 'client-clock', target: 'backward' }]);
  });

  it.each([
    ['chaos', /unknown nemesis 'chaos' in --nemesis 'chaos': choose none or some of client-pause, pause-node/],
    ['partition:nonsense', /bad target 'nonsense' for partition .*use partition:halves, partition:random-halves/],
    ['pause-node:one:two', /bad target 'one:two' for pause-node/],
    ['loss,loss:one', /names loss twice/],
    ['clock:one:sideways', /bad target 'one:sideways' for clock .*clock:<target>:forward\|backward\|strobe/],
    ['client-clock:one', /bad target 'one' for client-clock .*use client-clock:backward, client-clock:forward/],
    ['pause-node:one:backward', /bad target 'one:backward' for pause-node/],
    ['clock:bridge:backward', /clock:bridge jumps forward only .*: use clock:bridge$/],
    ['clock:bridge:strobe', /clock:bridge jumps forward only .*: use clock:bridge$/],
  ])('refuses %s in one line', (spec, message) => {
    expect(() => parseNemesisSpec(spec)).toThrow(UserError);
    expect(() => parseNemesisSpec(spec)).toThrow(message);
  });
});
