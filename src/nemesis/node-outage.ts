/**
 * What pause-node and kill-node share: a fault that takes whole nodes out (frozen or dead)
 * and brings them back; the two differ only in how. While out, a node is marked
 * unavailable for the other kinds.
 */
import type { NodeHandle } from '../cluster/cluster.js';
import { monotonicNow } from '../util/monotonic-clock.js';
import type { Rng } from '../util/rng.js';
import type { NemesisClients, NodeFaultContext } from './context.js';
import { KeptHolder } from './kept-holder.js';
import { type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from './nemesis.js';
import { chooseNodes } from './nodes.js';

export abstract class NodeOutage implements Nemesis {
  abstract readonly kind: string;
  private out: NodeHandle[] = [];
  /** While-held mode: the holder kept in its hold for the outage (kept-holder.ts). */
  private readonly holder?: KeptHolder;
  constructor(
    protected readonly ctx: NodeFaultContext,
    private readonly aim: string,
    /** Given: take the nodes down only while a client holds the lock, and keep it holding. */
    whileHeld?: NemesisClients,
    /** Given with whileHeld: while a client is at this code point instead, kept there. */
    private readonly atPoint?: string,
  ) {
    if (whileHeld) this.holder = new KeptHolder(whileHeld, ctx.timing.ttlMs, 5000, atPoint);
  }

  protected abstract takeDown(node: NodeHandle): Promise<void>;
  protected abstract bringBack(node: NodeHandle): Promise<void>;
  /** What the start's value adds for these nodes. */
  protected describe(_nodes: NodeHandle[]): Record<string, unknown> {
    return {};
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.timing.nemesisIntervalS, rng));
    const nodes = await chooseNodes(this.ctx, this.aim, rng);
    if (nodes.length === 0) return null;
    // Stopped before the nodes go down, so that it is still holding when they come back.
    const kept = this.holder ? await this.holder.keep(rng) : undefined;
    if (this.holder && !kept) return null;
    const inEffectFrom = monotonicNow();
    try {
      for (const n of nodes) {
        this.ctx.unavailable.add(n.name);
        // Out from the first attempt: stop() and healAll() bring back (and mark available)
        // a node whose take-down failed half way, too.
        this.out.push(n);
        await this.takeDown(n);
      }
    } catch (err) {
      // A start that failed is not stopped by the schedule: the holder must not wait for the heal.
      this.holder?.resume();
      throw err;
    }
    // Aimed at a point: the start says where, as a client fault's does (the coverage reads `at`).
    const held = kept ? { holder: kept, ...(this.atPoint !== undefined ? { at: this.atPoint } : {}) } : {};
    return {
      value: { nodes: nodes.map((n) => n.name), ms: durationMs, ...held, ...this.describe(nodes) },
      durationMs,
      inEffectFrom,
    };
  }
  async stop() {
    const nodes = this.out;
    this.out = [];
    try {
      await Promise.all(nodes.map((n) => this.bringBack(n)));
    } finally {
      for (const n of nodes) this.ctx.unavailable.delete(n.name);
    }
    // The nodes are back (restart waits until they answer); the holder still holds.
    const holder = await this.holder?.release();
    return { nodes: nodes.map((n) => n.name), ...(holder ? { holder } : {}) };
  }
  async healAll() {
    try {
      await this.stop();
    } finally {
      this.holder?.resume();
    }
  }
}
