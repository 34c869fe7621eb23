/**
 * One ZooKeeper session over the native `zookeeper` client (the C client), with what a lock
 * client must know about it and guards the native client lacks:
 *
 * - every request resolves to the server's return code (or rejects with an error that says
 *   whether the request certainly had no effect); a request with no answer within the
 *   request timeout ends as indefinite, like a lost connection;
 * - once the session is closed (by us) or expired (the server said so), nothing calls into
 *   the native handle again: it is not safe to use after close (some calls never answer,
 *   others crash the process);
 * - connection state as Curator names it: `suspended` while the client has lost its
 *   connection (it may come back within the session timeout), `ended` when the session is
 *   gone (its ephemeral znodes with it).
 *
 * The module is loaded on first use, so that a run of another backend never loads the
 * native addon.
 */
import { createRequire } from 'node:module';
import { errorMessage } from '../util/errors.js';
import { DefiniteFailure } from './backend.js';

/** The part of the native client's callback API that the lock recipe uses. */
interface NativeZooKeeper {
  init(config: object): unknown;
  close(): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  readonly timeout: number;
  /** zoo_state(): the C client's connection state. */
  readonly state: number;
  a_create(path: string, data: string, flags: number, cb: (rc: number, error: string, path: string) => void): number;
  a_exists(path: string, watch: boolean, cb: (rc: number, error: string, stat: ZkStat) => void): number;
  aw_exists(
    path: string,
    watcher: (type: number, state: number, path: string) => void,
    cb: (rc: number, error: string, stat: ZkStat) => void,
  ): number;
  a_get_children(path: string, watch: boolean, cb: (rc: number, error: string, children: string[]) => void): number;
  a_delete_(path: string, version: number, cb: (rc: number, error: string) => void): number;
}

interface ZooKeeperModule {
  new (config: object): NativeZooKeeper;
  constants: Record<string, number>;
}

export interface ZkStat {
  czxid: number;
  ephemeralOwner: string;
  /** The server's wall clock (ms since the epoch) when it took the create in. */
  ctime: number;
}

/**
 * The native client is an optional dependency (it compiles C sources at install, which
 * needs a toolchain): undefined when it is installed, else what to do.
 */
export function zookeeperMissing(): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    require.resolve('zookeeper');
  } catch {
    return "needs the optional native package 'zookeeper', which is not installed: npm install zookeeper (it compiles C sources: needs make, g++ and python3)";
  }
  try {
    zookeeperModule();
    return undefined;
  } catch (err) {
    // Installed, but its native client was never built: npm 11 runs no install script a
    // project has not approved, and a failed compile leaves the package without it.
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    return `needs the native client of the package 'zookeeper', which is installed but not built (${why}): allow its install script (npm 11: npm install-scripts approve zookeeper) and run npm rebuild zookeeper (needs make, g++ and python3)`;
  }
}

let loaded: ZooKeeperModule | undefined;
export function zookeeperModule(): ZooKeeperModule {
  loaded ??= createRequire(import.meta.url)('zookeeper') as ZooKeeperModule;
  return loaded;
}

/** Return codes of the C client (zookeeper.h). */
export const ZOK = 0;
export const ZNONODE = -101;
export const ZNODEEXISTS = -110;
export const ZSESSIONEXPIRED = -112;
export const ZCLOSING = -116;
export const ZSESSIONMOVED = -118;

/**
 * Codes that are not the server's answer to the request: system errors (-1 to -99:
 * connection loss, operation timeout ...) and a session closing, expired or moved while
 * the request was outstanding. The request may or may not have been applied.
 */
const noAnswer = (rc: number) =>
  (rc < 0 && rc > -100) || rc === ZSESSIONEXPIRED || rc === ZCLOSING || rc === ZSESSIONMOVED;

/** An error before the request was sent (closed session, refused by the client): no effect. */
export class ZkNotSent extends DefiniteFailure {}

/** The server answered with an error code: the request was not applied. */
export class ZkRefused extends DefiniteFailure {
  constructor(
    readonly rc: number,
    message: string,
  ) {
    super(message);
  }
}

/** No answer: a lost connection, a closing or expired session, or no reply in time. */
export class ZkIndefinite extends Error {}

/**
 * The C client's state once it has closed its socket itself (zk_adaptor.h's
 * NOTCONNECTED_STATE_DEF; the binding exports no constant for it).
 */
const ZOO_NOTCONNECTED_STATE = 999;

export class ZkSession {
  /** The client lost its connection and has not got it back (Curator: SUSPENDED). */
  suspended = false;
  /** Why the session ended (Curator: LOST), once it has. */
  ended: string | undefined;
  private readonly onEnd: Array<() => void> = [];

  private constructor(
    private readonly zk: NativeZooKeeper,
    private readonly requestTimeoutMs: number,
  ) {}

  /** Connects a new session with the given timeout; rejects (nothing created) if none comes up in time. */
  static async open(connect: string, sessionTimeoutMs: number, requestTimeoutMs: number): Promise<ZkSession> {
    const ZooKeeper = zookeeperModule();
    // debug_level 0: the C client logs nothing (it would write to the workers' stderr).
    const zk = new ZooKeeper({ connect, timeout: sessionTimeoutMs, debug_level: 0, host_order_deterministic: false });
    const session = new ZkSession(zk, requestTimeoutMs);
    const connected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ZooKeeper session within ${requestTimeoutMs} ms`)),
        Math.max(requestTimeoutMs, 1000),
      );
      zk.on('connect', () => {
        clearTimeout(timer);
        session.suspended = false;
        resolve();
      });
      zk.on('connecting', () => {
        session.suspended = true;
      });
      zk.on('close', (_zk, code) => {
        clearTimeout(timer);
        session.end(code === ZSESSIONEXPIRED ? 'session expired' : `session closed (${String(code)})`, false);
        reject(new Error(`ZooKeeper session closed before it connected (${String(code)})`));
      });
    });
    connected.catch(() => {});
    zk.init({});
    try {
      await connected;
    } catch (err) {
      session.close();
      throw new ZkNotSent(errorMessage(err));
    }
    return session;
  }

  /** The session timeout the server agreed to (it bounds what the client asked for). */
  get timeoutMs(): number {
    return this.zk.timeout;
  }

  /** Calls `listener` once when the session ends (at once if it has). */
  whenEnded(listener: () => void): void {
    if (this.ended) listener();
    else this.onEnd.push(listener);
  }

  private end(why: string, closeNative: boolean) {
    if (this.ended) return;
    this.ended = why;
    if (closeNative) this.zk.close();
    for (const listener of this.onEnd.splice(0)) listener();
  }

  /** Ends the session: the server deletes its ephemeral znodes (or expires it, if unreachable). */
  close(): void {
    this.end('closed by the client', true);
  }

  /**
   * Runs one native request. Resolves with the callback's arguments when the server
   * answered (the caller judges the return code), rejects with ZkNotSent if the request was
   * never sent, and with ZkIndefinite otherwise (connection loss, no answer in time).
   */
  private request<T extends unknown[]>(
    name: string,
    send: (zk: NativeZooKeeper, cb: (rc: number, error: string, ...rest: T) => void) => number,
  ): Promise<{ rc: number; result: T }> {
    if (this.ended) return Promise.reject(new ZkNotSent(`${name}: ${this.ended}`));
    return new Promise((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        done = true;
        reject(new ZkIndefinite(`${name}: no answer within ${this.requestTimeoutMs} ms`));
      }, this.requestTimeoutMs);
      const notSent = (why: string) => {
        done = true;
        clearTimeout(timer);
        reject(new ZkNotSent(`${name}: ${why}`));
      };
      let rc: number;
      try {
        rc = send(this.zk, (code, error, ...rest) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          if (noAnswer(code)) {
            reject(new ZkIndefinite(`${name}: ${error || code}`));
          } else {
            resolve({ rc: code, result: rest });
          }
        });
      } catch (err) {
        // The native binding threw before sending (a closed handle, a bad argument).
        return notSent(`client threw before sending (${errorMessage(err)})`);
      }
      // Refused by the client before sending (bad state, bad arguments).
      if (rc !== ZOK) return notSent(`client refused the request (${rc})`);
      this.unlessSocketDropped(name);
    });
  }

  /**
   * A request whose send failed makes the C client close its socket there and then
   * (nonblocking_send), outside the binding's poll callback: the binding's poll stays on
   * the closed fd, and the next turn of the event loop aborts the process in libuv
   * (epoll_ctl ADD: EBADF; or, once the fd's number is reused, uv__io_stop's assertion;
   * node-zookeeper issues #93, #238, #262). Seen as SIGABRT in lock-set workers after a
   * ZooKeeper leader's clock jump broke every connection. Closing the handle now takes the
   * poll off that fd before the loop turns; the session ends (Curator: LOST) and the request
   * (perhaps partly sent) ends indefinite, as the close completes it.
   */
  private unlessSocketDropped(name: string): void {
    if (this.ended || this.zk.state !== ZOO_NOTCONNECTED_STATE) return;
    this.end(`${name}: the connection broke as the request was sent`, true);
  }

  /** Creates a znode; resolves to its path, or rejects with ZkRefused for a server refusal. */
  async create(path: string, data: string, flags: number): Promise<string> {
    const { rc, result } = await this.request<[string]>('create', (zk, cb) => zk.a_create(path, data, flags, cb));
    if (rc !== ZOK) throw new ZkRefused(rc, `create ${path}: ${rc}`);
    return result[0];
  }

  /** Creates the persistent znode `path` and its parents where missing. */
  async ensurePath(path: string): Promise<void> {
    let prefix = '';
    for (const part of path.split('/').filter(Boolean)) {
      prefix += `/${part}`;
      try {
        await this.create(prefix, '', 0);
      } catch (err) {
        if (!(err instanceof ZkRefused && err.rc === ZNODEEXISTS)) throw err;
      }
    }
  }

  /** The znode's stat, or null if it does not exist. */
  async stat(path: string): Promise<ZkStat | null> {
    const { rc, result } = await this.request<[ZkStat]>('exists', (zk, cb) => zk.a_exists(path, false, cb));
    if (rc === ZNONODE) return null;
    if (rc !== ZOK) throw new ZkRefused(rc, `exists ${path}: ${rc}`);
    return result[0];
  }

  /**
   * Leaves a watch on `path`: resolves to false if the znode does not exist, else true and
   * `onChange` is called once when it changes or goes away, or the connection state changes.
   */
  async watch(path: string, onChange: () => void): Promise<boolean> {
    let fired = false;
    const watcher = () => {
      if (!fired && !this.ended) {
        fired = true;
        onChange();
      }
    };
    const { rc } = await this.request<[ZkStat]>('exists', (zk, cb) => zk.aw_exists(path, watcher, cb));
    if (rc === ZNONODE) return false;
    if (rc !== ZOK) throw new ZkRefused(rc, `exists ${path}: ${rc}`);
    return true;
  }

  async children(path: string): Promise<string[]> {
    const { rc, result } = await this.request<[string[]]>('get_children', (zk, cb) =>
      zk.a_get_children(path, false, cb),
    );
    if (rc !== ZOK) throw new ZkRefused(rc, `get_children ${path}: ${rc}`);
    return result[0];
  }

  /** Deletes the znode: true if it was deleted now, false if it did not exist. */
  async delete(path: string): Promise<boolean> {
    const { rc } = await this.request<[]>('delete', (zk, cb) => zk.a_delete_(path, -1, cb));
    if (rc === ZNONODE) return false;
    if (rc !== ZOK) throw new ZkRefused(rc, `delete ${path}: ${rc}`);
    return true;
  }
}
