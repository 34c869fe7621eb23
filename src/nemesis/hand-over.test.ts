import { describe, expect, it } from 'vitest';
import { ALREADY_HELD } from '../../checkers/fault-windows.js';
import { untilHandedOver } from './context.js';

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
