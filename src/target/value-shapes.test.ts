import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { besideInventory, HOST_OR_IP, SSH_PATH, USER } from './value-shapes.js';

describe('the shapes of inventory values', () => {
  it('take host names and IP literals, and nothing a shell or ssh would read as more', () => {
    for (const ok of ['10.0.0.1', '::1', '2001:db8::7', 'etcd-1', 'a.b.example.com', 'myapp_redis_1', 'x.'])
      expect(HOST_OR_IP.test(ok), ok).toBe(true);
    for (const bad of ['-oProxyCommand=id', '10.0.0.1;id', '$(id)', 'a b', 'a..b', '-x', 'fe80::1%eth0', 'a/24', '*'])
      expect(HOST_OR_IP.test(bad), bad).toBe(false);
    expect(new RegExp(HOST_OR_IP.pattern).test('-oProxyCommand=id')).toBe(false);
  });
  it('take users and files that are never options', () => {
    expect(USER.test('root')).toBe(true);
    expect(USER.test('-oProxyCommand=id')).toBe(false);
    expect(SSH_PATH.test('/home/a/.ssh/id_ed25519')).toBe(true);
    expect(SSH_PATH.test('-i')).toBe(false);
  });
  it('read a relative path beside the inventory, ~/ in the home folder', () => {
    expect(besideInventory('k', '/srv/inv')).toBe('/srv/inv/k');
    expect(besideInventory('../k', '/srv/inv')).toBe('/srv/k');
    expect(besideInventory('/k', '/srv/inv')).toBe('/k');
    expect(besideInventory('~/k', '/srv/inv')).toBe(join(homedir(), 'k'));
  });
});
