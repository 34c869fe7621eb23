import { describe, expect, it } from 'vitest';
import { decodeGrant, decodeWrite, encodeGrant, encodeWrite, grantProblem, storedGrantProblem } from './op-values.js';

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

  it('a grant from elsewhere drops numbers no grant holds: a negative validity, a negative or fractional token', () => {
    expect(decodeGrant({ validityMs: -5, token: -5, votes: 2 })).toEqual({ votes: 2 });
    expect(decodeGrant({ validityMs: 0, token: 1.5 })).toEqual({ validityMs: 0 });
    expect(decodeGrant({ validityMs: 10, token: 2 ** 53 })).toEqual({ validityMs: 10 });
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

describe('a negative validity or token is refused, from a backend or in a stored history', () => {
  it('grantProblem names the field, its value and what it must be', () => {
    expect(grantProblem({ validityMs: -5 })).toBe(
      'validityMs is -5, a negative number of ms (a validity is 0 or more)',
    );
    expect(grantProblem({ validityMs: 0, token: 0 })).toBeUndefined();
    expect(grantProblem({ validityMs: 990, token: -5 })).toBe('token is -5, not an integer from 0 to 2^53-1');
    expect(grantProblem({ validityMs: 990, token: 1.5 })).toBe('token is 1.5, not an integer from 0 to 2^53-1');
    expect(grantProblem({ validityMs: 990, token: 2 ** 53 })).toBe(
      'token is 9007199254740992, not an integer from 0 to 2^53-1',
    );
    expect(grantProblem({ validityMs: 990, token: Number.MAX_SAFE_INTEGER })).toBeUndefined();
    expect(grantProblem({ validityMs: Number.NEGATIVE_INFINITY })).toBe('validityMs is -Infinity, not a finite number');
  });

  it("storedGrantProblem: the numbers of an acquire's value; a foreign value, or a field not a number, has none", () => {
    expect(storedGrantProblem({ validityMs: -5, token: 3 })).toMatch(/^validityMs is -5/);
    expect(storedGrantProblem({ validityMs: 5, token: -5 })).toMatch(/^token is -5/);
    expect(storedGrantProblem({ validityMs: 5, token: 3, votes: 2 })).toBeUndefined();
    for (const v of [null, undefined, -5, [-5], 'x', { token: '-5' }, { token: null }, {}])
      expect(storedGrantProblem(v)).toBeUndefined();
  });
});
