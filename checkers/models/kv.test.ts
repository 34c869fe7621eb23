/**
 * The kv model's values as chains (KvValue): a value is the text it stands for, whichever
 * appends and puts made it; the same appends to the same value give the same key; keys of
 * different values never meet, even across trees; and the search's steps (no reasons) and
 * the counterexample's (reasons) accept and reject the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KvValue, kv } from './kv.js';
import { REJECTED, Rejection } from './model.js';

const op = (f: string, value?: unknown) => ({ f, process: 0, value, index: 0 });
const ok = (value?: unknown) => ({ known: true, value });

describe('KvValue', () => {
  it('is the text it stands for, however it was made', () => {
    const root = KvValue.empty();
    const chained = root.append('ab').append('c').append('').append('de');
    expect(chained.toString()).toBe('abcde');
    expect(chained.length).toBe(5);
    expect(JSON.stringify({ v: chained })).toBe('{"v":"abcde"}');
    expect(chained.equals('abcde')).toBe(true);
    for (const other of ['abcdf', 'abcd', 'xbcde', 'abcdee', '']) expect(chained.equals(other)).toBe(false);
    expect(root.equals('')).toBe(true);
    expect(chained.set('').equals('')).toBe(true);
  });

  it('gives the same appends to the same value the same object, and a put one object per text', () => {
    const root = KvValue.empty();
    const a = root.append('a');
    expect(a.append('b')).toBe(a.append('b'));
    expect(a.append('b')).not.toBe(a.append('c'));
    expect(a.append('b').append('c').set('q')).toBe(root.set('q'));
    expect(root.append('q')).toBe(root.set('q'));
    expect(a.append('')).toBe(a);
  });

  it('has keys that differ for different values, within a tree and across trees', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom('', 'a', 'b', 'ab'), { maxLength: 5 }), { minLength: 1, maxLength: 20 }),
        (chains) => {
          const byKey = new Map<number, string>();
          const roots = [KvValue.empty(), KvValue.empty()];
          chains.forEach((chain, i) => {
            let v = roots[i % 2];
            for (const text of chain) v = i % 3 === 0 ? v.set(text) : v.append(text);
            const key = kv.key(v) as number;
            const seen = byKey.get(key);
            if (seen !== undefined) expect(v.toString()).toBe(seen);
            byKey.set(key, v.toString());
          });
        },
      ),
      { numRuns: 300, seed: 20261201 },
    );
  });
});

describe('kv steps', () => {
  it('a get of a value made by a put and one made by appends is accepted alike', () => {
    const root = kv.init();
    const put = kv.step(root, op('put', 'abc'), ok('abc')) as KvValue;
    const appended = kv.step(
      kv.step(root, op('put', 'ab'), ok('ab')) as KvValue,
      op('append', 'c'),
      ok('c'),
    ) as KvValue;
    expect(kv.key(put)).not.toBe(kv.key(appended));
    for (const state of [put, appended]) expect(kv.step(state, op('get'), ok('abc'))).toBe(state);
  });

  it('rejects the same without reasons, and with them names what the key holds', () => {
    const state = kv.step(kv.init(), op('put', 'x'), ok('x')) as KvValue;
    expect(kv.step(state, op('get'), ok('y'), false)).toBe(REJECTED);
    const why = kv.step(state, op('get'), ok('y'));
    expect(why).toBeInstanceOf(Rejection);
    expect((why as Rejection).reason).toBe('get → "y", but the key holds "x"');
    expect(kv.step(state, op('get'), ok('x'), false)).toBe(state);
  });

  it('starts from --initial, and a get of nil or "" finds an absent key', () => {
    expect(kv.init('ab').toString()).toBe('ab');
    const root = kv.init();
    expect(kv.step(root, op('get'), ok(null))).toBe(root);
    expect(kv.step(root, op('get'), ok(''))).toBe(root);
  });
});
