import { describe, expect, it } from 'vitest';
import { extensionWords } from './client-check.js';

describe("client-check's words for a library's extensions", () => {
  it('counts the extensions and the failures, with the last lease and the last error as the library said it', () => {
    expect(extensionWords([])).toBeUndefined();
    expect(
      extensionWords([
        { extended: true, validityMs: 5000 },
        { extended: true, validityMs: 4000 },
      ]),
    ).toBe('extended its lease 2× (the last: 4000 ms from then) while it held');
    expect(extensionWords([{ extended: true }, { extended: false, error: 'Connection reset by peer' }])).toBe(
      'extended its lease 1×, and failed to extend it 1× (the last: Connection reset by peer) while it held',
    );
    expect(extensionWords([{ extended: false, error: 'timeout' }])).toBe(
      'failed to extend its lease 1× (the last: timeout) while it held',
    );
  });
});
