import { describe, expect, it } from 'vitest';
import { ALREADY_HELD } from '../../checkers/fault-windows.js';
import { untilHandedOver, untilSomeoneHolds } from './context.js';

describe('untilHandedOver', () => {
  it('says another client already held the lock when it did as the client was caught', async () => {
    expect(await untilHandedOver({ holders: () => [2] }, 1, Date.now() + 1000)).toBe(ALREADY_HELD);
  });

  it('says the lock changed hands when another client took it while the client was held', async () => {
    let holders: number[] = [1];
    setTimeout(() => (holders = [2]), 20);
    expect(await untilHandedOver({ holders: () => holders }, 1, Date.now() + 5000)).toBe(
      'another client held the lock',
    );
  });

  it('says its length was spent when nobody else took the lock', async () => {
    expect(await untilHandedOver({ holders: () => [1] }, 1, Date.now() + 20)).toBe('its length was spent');
  });
});

describe('untilSomeoneHolds', () => {
  it('answers the holders at once when someone holds', async () => {
    expect(await untilSomeoneHolds({ holders: () => [2, 0] }, Date.now() + 1000)).toEqual([2, 0]);
  });

  it('waits for the first holder', async () => {
    let holders: number[] = [];
    setTimeout(() => (holders = [1]), 20);
    expect(await untilSomeoneHolds({ holders: () => holders }, Date.now() + 5000)).toEqual([1]);
  });

  it('answers none once the deadline has come and nobody held', async () => {
    let asked = 0;
    const holders = () => {
      asked++;
      return [];
    };
    expect(await untilSomeoneHolds({ holders }, Date.now() + 20)).toEqual([]);
    expect(asked).toBeGreaterThan(1); // it looked again before giving up
  });
});
