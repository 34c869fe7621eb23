/**
 * A campaign's workloads at once: --parallel of them. A cell takes a slot once its cluster
 * is ready and gives it back once its workload is over, so that the next cells' clusters
 * start (and the finished ones tear down and check) while the slots' workloads run: the
 * fixed cost of a cell is paid beside another's workload, not after it. First come, first
 * served; a waiter whose signal is aborted leaves the queue.
 */
export class WorkloadSlots {
  private free: number;
  /** Those waiting, each by the function that grants it its slot. */
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Workloads running now. */
  get taken(): number {
    return this.size - this.free;
  }

  /** A slot, as the function that gives it back (once; calling it again does nothing). */
  take(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.giveBack());
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      if (this.free > 0) {
        this.free--;
        grant();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private giveBack(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
