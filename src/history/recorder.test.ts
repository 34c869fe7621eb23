import { describe, expect, it } from 'vitest';
import { DefiniteFailure } from './definite-failure.js';
import { Recorder, type UnindexedOp } from './recorder.js';

describe('Recorder', () => {
  const make = () => {
    const ops: UnindexedOp[] = [];
    return { ops, r: new Recorder(2, 5, process.hrtime.bigint(), (op) => ops.push(op)) };
  };

  it('records ok with the result, and the argument when there is none', async () => {
    const { ops, r } = make();
    await r.perform('read', 'k', undefined, async () => ({ type: 'ok', value: [1] }));
    await r.perform('write', 'k', [1, 2], async () => ({ type: 'ok' }));
    expect(ops.map((o) => [o.type, o.f, o.value])).toEqual([
      ['invoke', 'read', undefined],
      ['ok', 'read', [1]],
      ['invoke', 'write', [1, 2]],
      ['ok', 'write', [1, 2]],
    ]);
    expect(ops[1]!.time).toBeGreaterThanOrEqual(ops[0]!.time);
  });

  it('records a definite failure as fail and keeps the process', async () => {
    const { ops, r } = make();
    await r.perform('write', 'k', 1, async () => {
      throw new DefiniteFailure('not sent');
    });
    expect(ops[1]).toMatchObject({ type: 'fail', process: 2, error: 'not sent' });
    expect(r.process).toBe(2);
  });

  it('records any other error as info and takes a fresh process number', async () => {
    const { ops, r } = make();
    await r.perform('write', 'k', 1, async () => {
      throw new Error('Command timed out');
    });
    expect(ops[1]).toMatchObject({ type: 'info', process: 2, error: 'Command timed out' });
    expect(r.process).toBe(7);
  });
});

describe('Recorder events', () => {
  const make = () => {
    const ops: UnindexedOp[] = [];
    return { ops, r: new Recorder(2, 5, process.hrtime.bigint(), (op) => ops.push(op)) };
  };

  it('records an event as an invocation and its completion, after the request in flight', async () => {
    const { ops, r } = make();
    r.event('extend', 'lock', { type: 'ok', value: { validityMs: 900 } });
    await r.perform('read', 'k', undefined, async () => {
      r.event('extend', 'lock', { type: 'fail', error: 'not extended' });
      return { type: 'ok', value: [1] };
    });
    expect(ops.map((o) => [o.type, o.f, o.value ?? o.error])).toEqual([
      ['invoke', 'extend', undefined],
      ['ok', 'extend', { validityMs: 900 }],
      ['invoke', 'read', undefined],
      ['ok', 'read', [1]],
      ['invoke', 'extend', undefined],
      ['fail', 'extend', 'not extended'],
    ]);
    // Stamped when it was reported, inside the read.
    expect(ops[4]!.time).toBeLessThanOrEqual(ops[3]!.time);
    expect(ops[5]!.time).toBe(ops[4]!.time);
  });

  it('drops an event held while a request that ends info was in flight: its process is over', async () => {
    const { ops, r } = make();
    await r.perform('write', 'k', 1, async () => {
      r.event('extend', 'lock', { type: 'ok', value: { validityMs: 900 } });
      throw new Error('Command timed out');
    });
    expect(ops.map((o) => o.f)).toEqual(['write', 'write']);
  });
});
