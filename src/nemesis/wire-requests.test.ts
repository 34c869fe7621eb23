import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detect, sqlName, WireSplitter } from './wire-requests.js';

const resp = (...args: string[]) =>
  Buffer.from(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);

const pgStartup = () => {
  const body = Buffer.from('user\0lockchaos\0\0');
  const b = Buffer.alloc(8 + body.length);
  b.writeInt32BE(b.length, 0);
  b.writeInt32BE(196608, 4);
  body.copy(b, 8);
  return b;
};
const pgQuery = (sql: string) => {
  const text = Buffer.from(`${sql}\0`);
  const b = Buffer.alloc(5 + text.length);
  b.write('Q', 0);
  b.writeInt32BE(4 + text.length, 1);
  text.copy(b, 5);
  return b;
};
const zkFrame = (body: Buffer) => {
  const b = Buffer.alloc(4 + body.length);
  b.writeInt32BE(body.length, 0);
  body.copy(b, 4);
  return b;
};
const zkConnect = () => zkFrame(Buffer.alloc(44));
const zkRequest = (xid: number, type: number) => {
  const body = Buffer.alloc(20);
  body.writeInt32BE(xid, 0);
  body.writeInt32BE(type, 4);
  return zkFrame(body);
};

/** The stream cut at the given points, each piece pushed in turn: the names of what comes out. */
function names(stream: Buffer, cuts: number[]): { names: (string | undefined)[]; bytes: Buffer } {
  const s = new WireSplitter();
  const out: Buffer[] = [];
  const found: (string | undefined)[] = [];
  let at = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(stream.length)) {
    for (const f of s.push(stream.subarray(at, cut))) {
      out.push(f.bytes);
      found.push(f.name);
    }
    at = cut;
  }
  return { names: found, bytes: Buffer.concat(out) };
}

describe('the wire splitter', () => {
  it('names Redis commands, however the stream is cut, and passes every byte on in order', () => {
    const stream = Buffer.concat([
      resp('SET', 'lockchaos:lock', 'c1:7', 'NX', 'PX', '1000'),
      resp('incr', 'lockchaos:lock:token'),
      resp('EVALSHA', 'abc', '1', 'k', 'v\r\nwith a newline'),
      Buffer.from('PING\r\n'),
      resp('DEL', 'lockchaos:lock'),
    ]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), (cuts) => {
        const got = names(stream, cuts);
        expect(got.names).toEqual(['SET', 'INCR', 'EVALSHA', 'PING', 'DEL']);
        expect(got.bytes.equals(stream)).toBe(true);
      }),
    );
  });

  it('names PostgreSQL queries by the function they call', () => {
    const stream = Buffer.concat([
      pgStartup(),
      pgQuery('SELECT pg_try_advisory_lock(42)'),
      pgQuery('select pg_advisory_unlock(42)'),
      pgQuery('BEGIN'),
    ]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 8 }), (cuts) => {
        const got = names(stream, cuts);
        expect(got.names).toEqual([undefined, 'pg_try_advisory_lock', 'pg_advisory_unlock', 'begin']);
        expect(got.bytes.equals(stream)).toBe(true);
      }),
    );
  });

  it('names ZooKeeper requests by their type after the connect', () => {
    const stream = Buffer.concat([zkConnect(), zkRequest(1, 15), zkRequest(2, 12), zkRequest(3, 2), zkRequest(-2, 11)]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 8 }), (cuts) => {
        expect(names(stream, cuts).names).toEqual(['connect', 'create2', 'getChildren2', 'delete', 'ping']);
      }),
    );
  });

  it('passes what it does not know (HTTP/2, TLS) unnamed, byte for byte', () => {
    const h2 = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    expect(detect(h2)).toBe('opaque');
    const tls = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc]);
    expect(detect(tls)).toBe('opaque');
    const got = names(Buffer.concat([h2, tls]), [3, 20]);
    expect(got.names.every((n) => n === undefined)).toBe(true);
    expect(got.bytes.equals(Buffer.concat([h2, tls]))).toBe(true);
  });

  it('gives up naming a stream that is not what it looked like, and loses nothing', () => {
    const bad = Buffer.from('*2\r\nnot a bulk string at all\r\n');
    const got = names(bad, [5]);
    expect(got.bytes.equals(bad)).toBe(true);
  });

  it('names SQL by its first call, else its first word', () => {
    expect(sqlName('SELECT pg_try_advisory_lock($1), nextval($2)')).toBe('pg_try_advisory_lock');
    expect(sqlName('  COMMIT')).toBe('commit');
    expect(sqlName('')).toBeUndefined();
  });
});
