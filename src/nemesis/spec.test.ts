import { describe, expect, it } from 'vitest';
import { UserError } from '../util/errors.js';
import { aimedFaults } from './aimed-faults.js';
import { pauseNode } from './kinds/pause-node.js';
import { parseNemesisSpec } from './spec.js';

describe('--nemesis spec', () => {
  it('reads code points: a request on the wire, a named point a client reaches', () => {
    expect(parseNemesisSpec('wire')).toEqual([{ kind: 'wire', aim: 'DEL', mode: 'pause' }]);
    expect(parseNemesisSpec('wire:INCRBY:hold')).toEqual([{ kind: 'wire', aim: 'INCRBY', mode: 'hold' }]);
    expect(parseNemesisSpec('wire:pg_advisory_unlock:stop')).toEqual([
      { kind: 'wire', aim: 'pg_advisory_unlock', mode: 'stop' },
    ]);
    expect(parseNemesisSpec('client-pause:at=before-release')).toEqual([
      { kind: 'client-pause', aim: 'at=before-release' },
    ]);
    expect(() => parseNemesisSpec('client-pause:at=')).toThrow(/client-pause:at=<point>/);
    expect(parseNemesisSpec('client-kill:at=in-extend,client-pause')).toEqual([
      { kind: 'client-kill', aim: 'at=in-extend' },
      { kind: 'client-pause', aim: 'holder' },
    ]);
    expect(() => parseNemesisSpec('wire:DEL:later')).toThrow(/wire:<aim>:pause\|hold\|stop\|drop/);
    expect(() => parseNemesisSpec('wire:DEL;rm')).toThrow(/wire:<request>/);
  });

  it('reads none, single kinds, targets and compositions', () => {
    expect(parseNemesisSpec('none')).toEqual([]);
    expect(parseNemesisSpec('client-pause')).toEqual([{ kind: 'client-pause', aim: 'holder' }]);
    expect(parseNemesisSpec('pause-node:leader, partition:majorities-ring,kill-node')).toEqual([
      { kind: 'pause-node', aim: 'leader', mode: 'anytime' },
      { kind: 'partition', aim: 'majorities-ring' },
      { kind: 'kill-node', aim: 'one', mode: 'anytime' },
    ]);
  });

  it("reads a clock's mode, forward unless told, and the client clock", () => {
    expect(parseNemesisSpec('clock')).toEqual([{ kind: 'clock', aim: 'minority', mode: 'forward' }]);
    expect(parseNemesisSpec('clock:one:backward')).toEqual([{ kind: 'clock', aim: 'one', mode: 'backward' }]);
    expect(parseNemesisSpec('clock:all:strobe')).toEqual([{ kind: 'clock', aim: 'all', mode: 'strobe' }]);
    expect(parseNemesisSpec('client-clock')).toEqual([{ kind: 'client-clock', aim: 'backward' }]);
  });

  it('reads a node fault at any moment unless told, or while a client holds the lock', () => {
    expect(parseNemesisSpec('kill-node')).toEqual([{ kind: 'kill-node', aim: 'one', mode: 'anytime' }]);
    expect(parseNemesisSpec('kill-node:one:while-held,pause-node:leader:while-held')).toEqual([
      { kind: 'kill-node', aim: 'one', mode: 'while-held' },
      { kind: 'pause-node', aim: 'leader', mode: 'while-held' },
    ]);
    expect(() => parseNemesisSpec('kill-node:one:held')).toThrow(
      /use kill-node:one, .*kill-node:<aim>:anytime\|while-held\|at=<point>/,
    );
  });

  it('reads a node fault while a client is at a code point, and aims the coverage there', () => {
    const specs = parseNemesisSpec('pause-node:one:at=before-release,kill-node:all:at=my.point');
    expect(specs).toEqual([
      { kind: 'pause-node', aim: 'one', mode: 'at=before-release' },
      { kind: 'kill-node', aim: 'all', mode: 'at=my.point' },
    ]);
    expect(aimedFaults(specs)).toEqual([
      { kind: 'pause-node', point: 'before-release' },
      { kind: 'kill-node', point: 'my.point' },
    ]);
    expect(aimedFaults(parseNemesisSpec('pause-node:one:while-held'))).toEqual([]);
    for (const bad of ['pause-node:one:at=', 'kill-node:one:at=a b', 'pause-node:one:at=-x']) {
      expect(() => parseNemesisSpec(bad)).toThrow(/bad aim/);
    }
    expect(pauseNode.words({ nodes: ['n1'], holder: { process: 3, at: 'in-hold' } })).toEqual({
      whom: 'n1',
      how: ['while process 3 was at in-hold'],
    });
  });

  it.each([
    ['chaos', /unknown nemesis 'chaos' in --nemesis 'chaos': choose none or some of client-pause, pause-node/],
    ['partition:nonsense', /bad aim 'nonsense' for partition .*use partition:halves, partition:random-halves/],
    ['pause-node:one:two', /bad aim 'one:two' for pause-node/],
    ['loss,loss:one', /names loss twice/],
    ['clock:one:sideways', /bad aim 'one:sideways' for clock .*clock:<aim>:forward\|backward\|strobe/],
    ['client-clock:one', /bad aim 'one' for client-clock .*use client-clock:backward, client-clock:forward/],
    ['pause-node:one:backward', /bad aim 'one:backward' for pause-node/],
    ['clock:bridge:backward', /clock:bridge jumps forward only .*: use clock:bridge$/],
    ['clock:bridge:strobe', /clock:bridge jumps forward only .*: use clock:bridge$/],
  ])('refuses %s in one line', (spec, message) => {
    expect(() => parseNemesisSpec(spec)).toThrow(UserError);
    expect(() => parseNemesisSpec(spec)).toThrow(message);
  });
});
