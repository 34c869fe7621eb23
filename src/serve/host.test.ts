import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isOwnHost, ownHosts } from './host.js';

describe("serve's Host check", () => {
  it('answers its own addresses on its port, in any case', () => {
    for (const host of ownHosts(8080)) expect(isOwnHost(host, 8080)).toBe(true);
    expect(isOwnHost('LOCALHOST:8080', 8080)).toBe(true);
  });

  it('refuses another name, another port, a missing port and no Host (DNS rebinding)', () => {
    for (const host of [
      'evil.example:8080',
      'evil.example',
      '127.0.0.1',
      'localhost',
      '127.0.0.1:8081',
      '127.0.0.2:8080',
      'localhost.evil.example:8080',
      '127.0.0.1:8080.evil.example',
      '',
      undefined,
    ]) {
      expect(isOwnHost(host, 8080), String(host)).toBe(false);
    }
  });

  it('refuses every other host name', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), (domain, port) => {
        fc.pre(domain !== 'localhost');
        expect(isOwnHost(`${domain}:${port}`, port)).toBe(false);
      }),
    );
  });
});
