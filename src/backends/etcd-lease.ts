/**
 * An etcd lease that a lock client keeps alive while it holds the lock, and what the
 * client knows about it: when it was last renewed (the send time of the newest renewal the
 * server confirmed) and whether the server said it is gone.
 *
 * The client believes in the lease until etcd tells it otherwise (a keepalive answered
 * with TTL 0): it does not guess from its own timers. A client paused past its TTL learns
 * the truth only from its first keepalive after the pause, as a real one would.
 */
import type { IDuplexStream, ILeaseKeepAliveRequest, ILeaseKeepAliveResponse, LeaseClient } from 'etcd3';
import { monotonicNow, NS_PER_MS } from '../util/monotonic-clock.js';

/** The keepalive stream reopens this long after it broke (not a retry of any request). */
const REOPEN_MS = 100;

export class KeptLease {
  private stream: IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Send times of keepalives not yet answered, oldest first (answers come in order). */
  private unanswered: bigint[] = [];

  private constructor(
    private readonly leases: LeaseClient,
    readonly id: string,
    /** The TTL etcd granted, in seconds (it may raise the one asked for to its minimum). */
    readonly ttlS: number,
    private renewedAt: bigint,
  ) {}

  /** Grants a lease of ttlS seconds and starts keeping it alive every TTL/3. */
  static async grant(leases: LeaseClient, ttlS: number, timeoutMs: number): Promise<KeptLease> {
    const sentAt = monotonicNow();
    const res = await leases.leaseGrant({ TTL: ttlS }, { deadline: Date.now() + timeoutMs });
    if (res.error) throw new Error(`lease grant: ${res.error}`);
    const lease = new KeptLease(leases, res.ID, Number(res.TTL), sentAt);
    lease.keepAlive();
    return lease;
  }

  /** Milliseconds the lease lasts at least, counted from `from` (a monotonic time). */
  validityFrom(from: bigint): number {
    return this.ttlS * 1000 - Number(from - this.renewedAt) / NS_PER_MS;
  }

  private keepAlive() {
    const intervalMs = (this.ttlS * 1000) / 3;
    this.timer = setInterval(() => this.send(), intervalMs);
    this.openStream();
  }

  private openStream() {
    if (this.stopped) return;
    this.unanswered = [];
    this.leases.leaseKeepAlive().then(
      (stream) => {
        if (this.stopped) {
          stream.on('error', () => {});
          stream.cancel();
          return;
        }
        this.stream = stream;
        stream.on('data', (res: ILeaseKeepAliveResponse) => {
          if (this.stream === stream) this.onAnswer(res);
        });
        // A broken stream loses nothing but renewals; reopen it (no request is repeated).
        const reopen = () => {
          if (this.stream === stream) this.reopenNow();
        };
        stream.on('error', reopen);
        stream.on('end', reopen);
      },
      () => setTimeout(() => this.openStream(), REOPEN_MS).unref(),
    );
  }

  private send() {
    if (this.stopped || !this.stream) return;
    const now = monotonicNow();
    const oldest = this.unanswered[0];
    if (oldest !== undefined && Number(now - oldest) / NS_PER_MS > this.ttlS * 1000) {
      // A stream unanswered for a whole TTL is stuck (its server paused or cut off): open a
      // new one, on whichever server the pool picks. Nothing is concluded about the lease.
      this.reopenNow();
      return;
    }
    this.unanswered.push(now);
    try {
      this.stream.write({ ID: this.id });
    } catch {
      // the stream's error handler reopens it
    }
  }

  private reopenNow() {
    this.dropStream();
    setTimeout(() => this.openStream(), REOPEN_MS).unref();
  }

  private onAnswer(res: ILeaseKeepAliveResponse) {
    const sentAt = this.unanswered.shift();
    if (res.TTL === '0' || Number(res.TTL) <= 0) {
      this.stop(); // etcd says the lease no longer exists: nothing left to keep alive
    } else if (sentAt !== undefined && sentAt > this.renewedAt) {
      this.renewedAt = sentAt;
    }
  }

  /** Stops renewing: the lease expires at its TTL, as a crashed client's would. */
  stop() {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.dropStream();
  }

  /** Cancels the current stream (its handlers no longer act: it is not the current one). */
  private dropStream() {
    const stream = this.stream;
    this.stream = undefined;
    try {
      stream?.cancel();
    } catch {
      // already broken
    }
  }

  /** Stops renewing and asks etcd to drop the lease now (its keys go with it). */
  async revoke(timeoutMs: number): Promise<void> {
    this.stop();
    await this.leases.leaseRevoke({ ID: this.id }, { deadline: Date.now() + timeoutMs });
  }
}
