import { describe, expect, it } from 'vitest';
import { H } from '../test/unit/history-builder.js';
import { checkLostUpdates } from './lost-updates.js';

const S = 'S';

describe('lost updates', () => {
  it('accepts when every acknowledged add is in the final read', () => {
    const h = new H()
      .invoke(0, 'write', S, [1])
      .ok(0, 'write', S, [1])
      .invoke(1, 'write', S, [1, 2])
      .ok(1, 'write', S, [1, 2])
      .invoke(2, 'read', S)
      .ok(2, 'read', S, [1, 2]);
    const r = checkLostUpdates(h.ops, S);
    expect(r.valid).toBe(true);
    expect(r.details).toMatchObject({ acknowledged: 2, lost: 0 });
  });

  it('names a lost element, its writer and the write that dropped it', () => {
    // Both read [], both write: the second write drops the first element.
    const h = new H()
      .invoke(0, 'write', S, [10])
      .ok(0, 'write', S, [10])
      .invoke(1, 'write', S, [11])
      .ok(1, 'write', S, [11])
      .invoke(2, 'read', S)
      .ok(2, 'read', S, [11]);
    const r = checkLostUpdates(h.ops, S);
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/element 10, acknowledged to process 0.*overwritten by process 1/);
  });

  it('does not count unacknowledged (info or rejected) writes as lost', () => {
    const h = new H()
      .invoke(0, 'write', S, [[10], 3])
      .info(0, 'write', S, [[10], 3])
      .invoke(1, 'write', S, [[11], 2])
      .fail(1, 'write', S, [[11], 2], 'rejected')
      .invoke(4, 'read', S)
      .ok(4, 'read', S, []);
    expect(checkLostUpdates(h.ops, S).valid).toBe(true);
  });

  it('reads the fenced write shape [set, token]', () => {
    const h = new H()
      .invoke(0, 'write', S, [[10], 1])
      .ok(0, 'write', S, [[10], 1])
      .invoke(4, 'read', S)
      .ok(4, 'read', S, []);
    expect(checkLostUpdates(h.ops, S).valid).toBe(false);
  });

  it('flags an element in the final read that nobody wrote', () => {
    const h = new H().invoke(4, 'read', S).ok(4, 'read', S, [99]);
    expect(checkLostUpdates(h.ops, S).summary).toMatch(/1 unexpected/);
  });

  it('is unknown without a successful read', () => {
    const h = new H().invoke(0, 'write', S, [1]).ok(0, 'write', S, [1]).invoke(4, 'read', S).info(4, 'read', S);
    expect(checkLostUpdates(h.ops, S).valid).toBe('unknown');
  });
});
