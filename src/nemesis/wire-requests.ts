/**
 * What a client sends its lock server, split into requests and named: the wire faults
 * (kinds/wire.ts) hold, drop or follow one kind of request (`DEL`, `EVALSHA`, `INCR`,
 * `pg_advisory_unlock`, ZooKeeper's `delete`) at the moment it is sent, whatever the
 * language of the library that sent it. The protocol is told from a connection's first
 * bytes:
 *
 *   Redis (RESP)  `*N\r\n` then N bulk strings `$len\r\n...\r\n`, or an inline line;
 *                 the name is the first word, upper-cased (`SET`, `EVALSHA`)
 *   PostgreSQL    a startup message (length, protocol 3.0), then messages of a type
 *                 byte and a length; a query (`Q`) or a parse (`P`) is named by the
 *                 first function it calls (`pg_try_advisory_lock`), else its first
 *                 word (`select`); the rest are named by nothing and pass
 *   ZooKeeper     frames of a 4-byte length: the first is the session's connect, the
 *                 others carry (xid, type): named by the type (`create`, `delete`)
 *
 * Anything else passes unnamed as it came (etcd's gRPC over HTTP/2, TLS): a wire fault
 * names no request of it and so never fires there.
 */

export type WireProtocol = 'resp' | 'pgwire' | 'jute' | 'opaque';

/** One request as it is sent: its bytes, whole, and its name (undefined: not a request a fault can aim at). */
export interface WireFrame {
  bytes: Buffer;
  name?: string;
}

/** ZooKeeper's request types (OpCode in its jute definitions), by number. */
const ZK_OPS: Record<number, string> = {
  0: 'notification',
  1: 'create',
  2: 'delete',
  3: 'exists',
  4: 'getData',
  5: 'setData',
  6: 'getACL',
  7: 'setACL',
  8: 'getChildren',
  9: 'sync',
  11: 'ping',
  12: 'getChildren2',
  13: 'check',
  14: 'multi',
  15: 'create2',
  16: 'reconfig',
  17: 'checkWatches',
  18: 'removeWatches',
  19: 'createContainer',
  20: 'deleteContainer',
  21: 'createTTL',
  22: 'multiRead',
  100: 'auth',
  101: 'setWatches',
  102: 'sasl',
  [-11]: 'closeSession',
};

/** The longest request the splitter buffers before it gives up naming (and passes bytes as they come). */
const MAX_FRAME = 64 * 1024 * 1024;

/** The PostgreSQL startup message's protocol number (3.0), SSLRequest's and GSSENCRequest's codes. */
const PG_PROTOCOL_3 = 196608;
const PG_SPECIAL = new Set([80877103, 80877104, 80877102]);

/** The name of a PostgreSQL query: the first function it calls, else its first word. */
export function sqlName(sql: string): string | undefined {
  const call = /([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(sql);
  if (call) return (call[1] as string).toLowerCase();
  const word = /[A-Za-z_]+/.exec(sql);
  return word ? word[0].toLowerCase() : undefined;
}

/**
 * Splits one direction of a connection (client to server) into requests, as bytes
 * arrive in chunks of any size. `push` returns the requests completed so far; a request
 * cut across chunks waits for the rest of it.
 */
export class WireSplitter {
  private buf: Buffer = Buffer.alloc(0);
  protocol?: WireProtocol;
  /** ZooKeeper: the first frame is the connect request (no xid, no type). */
  private zkConnected = false;
  /** PostgreSQL: the startup message (or an SSL/GSS request) comes before typed messages. */
  private pgStarted = false;

  push(chunk: Buffer): WireFrame[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (this.protocol === undefined) {
      // Binary protocols open with at least 8 bytes in one write; a short text line is inline RESP.
      if (this.buf.length < 8 && this.buf[0] !== 0x2a && !this.buf.includes(0x0a)) return [];
      this.protocol = detect(this.buf);
    }
    const frames: WireFrame[] = [];
    for (;;) {
      if (this.buf.length === 0) break;
      if (this.protocol === 'opaque') {
        frames.push({ bytes: this.buf });
        this.buf = Buffer.alloc(0);
        break;
      }
      const next = this.next();
      if (next === undefined) {
        // Too long to be a request we know: stop naming, pass everything on as it comes.
        if (this.buf.length > MAX_FRAME) this.protocol = 'opaque';
        break;
      }
      frames.push(next);
    }
    return frames;
  }

  /** The next whole request at the buffer's head, taken off it; undefined if it is not all here. */
  private next(): WireFrame | undefined {
    const length = this.protocol === 'resp' ? respLength(this.buf) : this.framedLength();
    if (length === undefined) return undefined;
    if (length === 'bad') {
      this.protocol = 'opaque';
      return { bytes: this.take(this.buf.length) };
    }
    const bytes = this.take(length);
    return { bytes, name: this.nameOf(bytes) };
  }

  private take(n: number): Buffer {
    const head = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return head;
  }

  /** PostgreSQL's and ZooKeeper's frames: a length prefix. */
  private framedLength(): number | 'bad' | undefined {
    const b = this.buf;
    if (this.protocol === 'jute') {
      if (b.length < 4) return undefined;
      const n = b.readInt32BE(0);
      if (n < 0 || n > MAX_FRAME) return 'bad';
      return b.length >= 4 + n ? 4 + n : undefined;
    }
    // postgres
    if (!this.pgStarted) {
      if (b.length < 4) return undefined;
      const n = b.readInt32BE(0);
      if (n < 8 || n > MAX_FRAME) return 'bad';
      return b.length >= n ? n : undefined;
    }
    if (b.length < 5) return undefined;
    const n = b.readInt32BE(1);
    if (n < 4 || n > MAX_FRAME) return 'bad';
    return b.length >= 1 + n ? 1 + n : undefined;
  }

  private nameOf(bytes: Buffer): string | undefined {
    if (this.protocol === 'resp') return respName(bytes);
    if (this.protocol === 'jute') {
      if (!this.zkConnected) {
        this.zkConnected = true;
        return 'connect';
      }
      return bytes.length >= 12 ? (ZK_OPS[bytes.readInt32BE(8)] ?? `op${bytes.readInt32BE(8)}`) : undefined;
    }
    if (!this.pgStarted) {
      // An SSL or GSS request is answered by one byte, and the startup message follows.
      if (!PG_SPECIAL.has(bytes.readInt32BE(4))) this.pgStarted = true;
      return undefined;
    }
    const type = String.fromCharCode(bytes[0] as number);
    if (type === 'Q') return sqlName(bytes.toString('utf8', 5, bytes.length - 1));
    if (type === 'P') {
      // Parse: the statement's name (a C string), then its query (a C string).
      const nameEnd = bytes.indexOf(0, 5);
      if (nameEnd < 0) return undefined;
      const queryEnd = bytes.indexOf(0, nameEnd + 1);
      return sqlName(bytes.toString('utf8', nameEnd + 1, queryEnd < 0 ? bytes.length : queryEnd));
    }
    return undefined;
  }
}

/** Which protocol a connection speaks, from its first bytes (at least 8, or a RESP array's `*`). */
export function detect(first: Buffer): WireProtocol {
  if (first[0] === 0x2a) return 'resp';
  if (first.length >= 8) {
    const n = first.readInt32BE(0);
    const code = first.readInt32BE(4);
    if (n >= 8 && (code === PG_PROTOCOL_3 || PG_SPECIAL.has(code))) return 'pgwire';
    // ZooKeeper's connect: length, then protocolVersion 0.
    if (n >= 24 && n < 1024 && code === 0) return 'jute';
  }
  // An inline Redis command (`PING\r\n`): printable text up to a newline.
  const text = first.subarray(0, Math.min(first.length, 64)).toString('latin1');
  if (text.startsWith('PRI * HTTP/2')) return 'opaque'; // gRPC (etcd)
  if (/^[A-Za-z]+[ \r\n]/.test(text)) return 'resp';
  return 'opaque';
}

/** The length of the RESP request at the head of b; undefined if it is not all here, 'bad' if it is not RESP. */
export function respLength(b: Buffer): number | 'bad' | undefined {
  if (b.length === 0) return undefined;
  if (b[0] !== 0x2a) {
    // Inline: one line.
    const nl = b.indexOf(0x0a);
    return nl < 0 ? (b.length > MAX_FRAME ? 'bad' : undefined) : nl + 1;
  }
  let at = 0;
  const line = (): number | 'bad' | undefined => {
    const cr = b.indexOf('\r\n', at);
    if (cr < 0) return b.length - at > 32 ? 'bad' : undefined;
    const n = Number(b.toString('latin1', at + 1, cr));
    at = cr + 2;
    return Number.isSafeInteger(n) ? n : 'bad';
  };
  const count = line();
  if (typeof count !== 'number') return count;
  if (count < 0 || count > 1_000_000) return 'bad';
  for (let i = 0; i < count; i++) {
    if (at >= b.length) return undefined;
    if (b[at] !== 0x24) return 'bad';
    const n = line();
    if (typeof n !== 'number') return n;
    if (n < 0 || n > MAX_FRAME) return 'bad';
    at += n + 2;
    if (at > b.length) return undefined;
  }
  return at;
}

/** A RESP request's name: its first word, upper-cased. */
export function respName(frame: Buffer): string | undefined {
  if (frame[0] !== 0x2a) {
    const word = /^\s*(\S+)/.exec(frame.toString('latin1'));
    return word ? (word[1] as string).toUpperCase() : undefined;
  }
  const first = frame.indexOf('\r\n');
  const lenEnd = frame.indexOf('\r\n', first + 2);
  if (first < 0 || lenEnd < 0) return undefined;
  const n = Number(frame.toString('latin1', first + 3, lenEnd));
  if (!Number.isSafeInteger(n) || n < 0) return undefined;
  return frame.toString('latin1', lenEnd + 2, lenEnd + 2 + n).toUpperCase();
}
