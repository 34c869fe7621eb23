/**
 * What pause-node and kill-node share: a fault that takes whole nodes out (frozen or dead)
 * and brings them back; the two differ only in how. While out, a node is marked
 * unavailable for the other kinds.
 */
import type { NodeHandle } from '../cluster/cluster.js';
import type { Rng } from '../util/rng.js';
import type { NodeFaultContext } from './context.js';
import { type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from './nemesis.js';
import { chooseNodes } from './nodes.js';

export abstract class NodeOutage implements Nemesis {
  abstract readonly kind: string;
  private out: NodeHandle[] = [];
  constructor(
    protected readonly ctx: NodeFaultContext,
    private readonly target: string,
  ) {}

  protected abstract takeDown(node: NodeHandle): Promise<void>;
  protected abstract bringBack(node: NodeHandle): Promise<void>;
  /** What the start's value adds for these nodes. */
  protected describe(_nodes: NodeHandle[]): Record<string, unknown> {
    return {};
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.timing.intervalS, rng));
    const nodes = await chooseNodes(this.ctx, this.target, rng);
    if (nodes.length === 0) return null;
    for (const n of nodes) {
      this.ctx.unavailable.add(n.name);
      // Out from the first attempt: stop() and healAll() bring back (and mark available)
      // a node whose take-down failed half way, too.
      this.out.push(n);
      await this.takeDown(n);
    }
    return { value: { nodes: nodes.map((n) => n.name), ms: durationMs, ...this.describe(nodes) }, durationMs };
  }
  async stop() {
    const nodes = this.out;
    this.out = [];
    await Promise.all(nodes.map((n) => this.bringBack(n)));
    for (const n of nodes) this.ctx.unavailable.delete(n.name);
    return { nodes: nodes.map((n) => n.name) };
  }
  async healAll() {
    await this.stop();
  }
}
