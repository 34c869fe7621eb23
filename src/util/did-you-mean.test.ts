import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, suggestion } from './did-you-mean.js';

describe('did you mean', () => {
  it('finds the word a typo meant, and nothing for another word', () => {
    expect(editDistance('nemesiss', 'nemesis')).toBe(1);
    expect(editDistance('fecning', 'fencing')).toBe(1);
    expect(didYouMean('nemesiss', ['backend', 'nemesis', 'seed'])).toBe('nemesis');
    expect(didYouMean('redlok', ['redis', 'redlock', 'etcd'])).toBe('redlock');
    expect(didYouMean('clinet-pause', ['client-pause', 'pause-node'])).toBe('client-pause');
    expect(didYouMean('time', ['time-limit', 'ttl'])).toBe('time-limit');
    expect(didYouMean('banana', ['redis', 'etcd'])).toBeUndefined();
    expect(didYouMean('xy', ['ttl'])).toBeUndefined();
    expect(suggestion('sed', ['seed'], (k) => `--${k}`)).toBe(': did you mean --seed?');
    expect(suggestion('zzzz', ['seed'])).toBe('');
  });
});
