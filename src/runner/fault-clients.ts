/**
 * The clients as the nemesis sees them (nemesis/context.ts NemesisClients): who holds the
 * lock and what its grant carried, the processes a pause stops (the worker, its program and
 * its program's cgroup), a client caught at a code point, a client crashed and replaced.
 */
import { type CaughtAtPoint, type NemesisClients, signalAll } from '../nemesis/context.js';
import { cgroupPids } from '../util/cgroup.js';
import { groupMembers } from '../util/process-group.js';
import type { TrueTime } from '../util/warped-time.js';
import type { ClientWorker } from './client-worker.js';
import type { WorkerChannel } from './worker-channel.js';

export class FaultClients implements NemesisClients {
  /**
   * `workers`: the pool's, by client slot (a replacement takes its slot in place);
   * `replace`: the pool's crash of a client, a fresh one started in its place.
   */
  constructor(
    private readonly workers: readonly ClientWorker[],
    private readonly channel: WorkerChannel,
    private readonly replace: (client: number, why: string) => boolean,
  ) {}

  crash(client: number, why: string): boolean {
    return this.replace(client, why);
  }

  async catchAtPoint(where: string, timeoutMs: number, clockStepMs?: number): Promise<CaughtAtPoint | undefined> {
    const caught = await new Promise<CaughtAtPoint | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.channel.disarm(where);
        resolve(undefined);
      }, timeoutMs);
      this.channel.arm(where, (worker, seq) => {
        clearTimeout(timer);
        this.channel.disarm(where);
        const client = this.workers.indexOf(worker);
        // Stopped while it waits for its go: the program too, its timers and threads with it.
        const pids = signalAll(this.pids(client), 'SIGSTOP');
        let resumed = false;
        resolve({
          client,
          pids,
          resume: () => {
            if (resumed) return;
            resumed = true;
            signalAll(pids, 'SIGCONT');
            this.channel.send(worker, { type: 'point-go', seq, clockStepMs });
          },
        });
      });
      for (const w of this.workers) this.channel.send(w, { type: 'arm-point', where });
    });
    for (const w of this.workers) this.channel.send(w, { type: 'disarm-point', where });
    return caught;
  }

  grant(client: number): unknown {
    return this.workers[client]?.cycle.held?.value;
  }
  grantedAt(client: number): number | undefined {
    return this.workers[client]?.cycle.held?.at;
  }
  count(): number {
    return this.workers.length;
  }
  clockWarped(client: number, warped: boolean, trueTime?: TrueTime): void {
    const worker = this.workers[client];
    if (worker) this.channel.setClockWarped(worker, warped, trueTime);
  }
  holders(): number[] {
    return this.workers.flatMap((w, i) => (w.cycle.held && w.child.exitCode === null ? [i] : []));
  }
  pid(client: number): number | undefined {
    return this.workers[client]?.child.pid;
  }
  pids(client: number): number[] {
    const w = this.workers[client];
    // And every process of its program's cgroup: a daemon it started that left its
    // process group (setsid) is stopped with it too.
    const inGroup = w?.programPid !== undefined && w.cgroup !== undefined ? cgroupPids(w.cgroup) : [];
    return [w?.programPid, ...inGroup, w?.child.pid].filter((p): p is number => p !== undefined);
  }
  process(client: number): number {
    return this.workers[client]?.process ?? client;
  }
  /**
   * The worker's client program: its group is the shell's (programPid is its negative id);
   * the program is the member the shell started (dash forks it), else the shell itself.
   */
  program(client: number): { pid: number; pgid: number } | undefined {
    const group = this.workers[client]?.programPid;
    if (group === undefined) return undefined;
    const pgid = -group;
    const pid = groupMembers(pgid).find((m) => m.ppid === pgid)?.pid ?? pgid;
    return { pid, pgid };
  }
}
