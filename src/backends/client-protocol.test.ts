import { describe, expect, it } from 'vitest';
import {
  clientProgramName,
  PROTOCOL_VERSION,
  parseAnswer,
  parseAt,
  parseExtension,
  parseInitOk,
} from './client-protocol.js';

describe('the client protocol', () => {
  it('reads init_ok, and refuses another version or another first line', () => {
    expect(parseInitOk('{"type":"init_ok","protocol":1,"name":"x"}')).toEqual({
      type: 'init_ok',
      protocol: 1,
      name: 'x',
    });
    expect(parseInitOk(`{"type":"init_ok","protocol":${PROTOCOL_VERSION}}`)).toEqual({
      type: 'init_ok',
      protocol: PROTOCOL_VERSION,
    });
    expect(() => parseInitOk('{"type":"init_ok","protocol":3}')).toThrow(
      /speaks protocol 3: this harness speaks 1 and 2/,
    );
    expect(() => parseInitOk('{"type":"init_fail","error":"drives etcd only"}')).toThrow(
      /declined init: drives etcd only/,
    );
    expect(parseAt({ type: 'at', point: 'after-grant' })).toBe('after-grant');
    expect(parseAt({ type: 'ok', id: 1 })).toBeUndefined();
    expect(() => parseAt({ type: 'at', point: 'a b' })).toThrow(/an "at" with point "a b"/);
    expect(() => parseInitOk('{"type":"ok","id":0}')).toThrow(/expected \{"type":"init_ok",...\} first/);
  });

  it('reads ok with token, validity and lease; fail and unknown with their error', () => {
    expect(parseAnswer('{"type":"ok","id":3,"token":17,"validity_ms":990,"lease":{"k":1}}', 3, 'acquire')).toEqual({
      type: 'ok',
      id: 3,
      token: 17,
      validity_ms: 990,
      lease: { k: 1 },
    });
    expect(parseAnswer('{"type":"ok","id":3,"token":null}', 3, 'acquire')).toEqual({ type: 'ok', id: 3 });
    expect(parseAnswer('{"type":"fail","id":4,"error":"busy"}', 4, 'acquire')).toEqual({
      type: 'fail',
      id: 4,
      error: 'busy',
    });
    expect(parseAnswer('{"type":"unknown","id":4}', 4, 'release')).toEqual({
      type: 'unknown',
      id: 4,
      error: 'unknown (no error given)',
    });
  });

  it.each([
    ['lock acquired', /^not JSON: lock acquired$/],
    ['[1,2]', /^not a JSON object/],
    ['{"type":"ok"}', /^answer without an id/],
    ['{"type":"ok","id":9}', /^answer for id 9 while 3 was asked/],
    ['{"type":"granted","id":3}', /^unknown answer type "granted" \(ok, fail or unknown\)/],
    ['{"type":"ok","id":3,"token":"17"}', /^token "17" is not an integer from 0 to 2\^53-1: give the fencing token/],
    ['{"type":"ok","id":3,"token":1.5}', /^token 1.5 is not an integer from 0 to 2\^53-1/],
    ['{"type":"ok","id":3,"token":-5}', /^token -5 is not an integer from 0 to 2\^53-1: give the fencing token/],
    ['{"type":"ok","id":3,"token":9007199254740992}', /^token 9007199254740992 is not an integer from 0 to 2\^53-1/],
    ['{"type":"ok","id":3,"validity_ms":-5}', /^validity_ms -5 is not a number of ms >= 0/],
    ['{"type":"granted\\u001b[2J","id":3}', /^unknown answer type "granted\\u001b\[2J"/],
    ['\u001b[2Jnot json\r', /^not JSON: \\u001b\[2Jnot json\\r$/],
    ['{"type":"ok","id":3,"validity_ms":-1}', /^validity_ms -1 is not a number of ms >= 0/],
  ])('names what is wrong with %s in one line', (line, problem) => {
    expect(() => parseAnswer(line, 3, 'acquire')).toThrow(problem);
  });
});

describe("a library's own extension", () => {
  it('reads extended with its new validity or without one, and extend_failed with its error', () => {
    expect(parseExtension({ type: 'extended', validity_ms: 900 })).toEqual({ extended: true, validityMs: 900 });
    expect(parseExtension({ type: 'extended' })).toEqual({ extended: true });
    expect(parseExtension({ type: 'extend_failed', error: 'lock lost' })).toEqual({
      extended: false,
      error: 'lock lost',
    });
    expect(parseExtension({ type: 'extend_failed' })).toEqual({ extended: false, error: 'no error given' });
    expect(parseExtension({ type: 'at', point: 'in-extend' })).toBeUndefined();
  });

  it.each([-1, '900', Number.NaN, true])('names a validity_ms of %s as not a length, in one line', (v) => {
    expect(() => parseExtension({ type: 'extended', validity_ms: v })).toThrow(
      /^an "extended" with validity_ms .* give the lease's new length in ms from now, a number >= 0/,
    );
  });
});

describe('a client program in names', () => {
  it.each([
    ['python3 examples/clients/redis-py-lock', 'redis-py-lock'],
    ['node ./lock.mjs --verbose', 'lock'],
    ['/usr/bin/python3 -u /team/clients/kazoo_lock.py', 'kazoo_lock'],
    ['java -jar build/redisson-client.jar', 'redisson-client'],
    ['/usr/bin/python3 examples/clients/redis-py-lock/client.py', 'redis-py-lock'],
    ['./client', 'client'],
    ['python3 client.py', 'client'],
  ])('%s is called %s', (command, name) => {
    expect(clientProgramName(command)).toBe(name);
  });
});
