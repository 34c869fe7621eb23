import { describe, expect, it } from 'vitest';
import { decodeGrant, decodeWrite, encodeGrant, encodeWrite, grantProblem } from './op-values.js';

describe('op values', () => {
  it('a grant decodes to what was encoded, its validity rounded', () => {
    expect(decodeGrant(encodeGrant({ validityMs: 979.6, token: 20, votes: 3 }))).toEqual({
      validityMs: 980,
      token: 20,
      votes: 3,
    });
    expect(decodeGrant(encodeGrant({ validityMs: 1000 }))).toEqual({ validityMs: 1000 });
  });

  it('a grant from elsewhere has only its numeric fields', () => {
    expect(decodeGrant({ token: '7', validityMs: 5 })).toEqual({ validityMs: 5 });
    for (const v of [null, undefined, 3, [1, 2], 'x']) expect(decodeGrant(v)).toEqual({});
  });

  it('a write decodes to its set and, fenced, its token', () => {
    expect(decodeWrite(encodeWrite([1, 2], false, 9))).toEqual({ set: [1, 2], fenced: false });
    expect(decodeWrite(encodeWrite([1, 2], true, 9))).toEqual({ set: [1, 2], fenced: true, token: 9 });
    // A fenced write whose grant carried no token: [set, null] once stored as JSON.
    expect(decodeWrite(JSON.parse(JSON.stringify(encodeWrite([4], true, undefined))))).toEqual({
      set: [4],
      fenced: true,
    });
    expect(decodeWrite(null)).toEqual({ set: [], fenced: false });
  });
});

describe('grantProblem: a grant the history cannot hold as given', () => {
  it('names the field and its value; finite numbers pass', () => {
    expect(grantProblem({ validityMs: 990, token: 4, votes: 3 })).toBeUndefined();
    expect(grantProblem({ validityMs: 990 })).toBeUndefined();
    expect(grantProblem({ validityMs: 990, token: Number.NaN })).toBe('token is NaN, not a finite number');
    expect(grantProblem({ validityMs: Number.POSITIVE_INFINITY })).toBe('validityMs is Infinity, not a finite number');
    expect(grantProblem({ validityMs: 990, token: '12' })).toBe('token is the string "12", not a finite number');
    expect(grantProblem({ validityMs: undefined })).toBe('validityMs is undefined, not a finite number');
  });
});
