/**
 * Network faults from outside the node's image: a helper container of lockchaos's node
 * image joins the node's network namespace (`--network container:<id>`, NET_ADMIN) and
 * runs iptables there. The node itself needs no iptables, no shell and no capability, so
 * partitions and packet loss work on any image. The helper carries the run's labels and is
 * removed with the run's other containers (labels.ts), also by the sweep after a crash.
 */
import { docker, NODE_IMAGE } from './docker-engine.js';
import { type ExecResult, execInContainer } from './exec.js';
import { NET_HELPER_ROLE, runLabels } from './labels.js';

export class NetnsHelper {
  private helper: Promise<string> | undefined;
  private generation = 0;

  constructor(
    private readonly runId: string,
    private readonly nodeName: string,
    private readonly nodeContainerId: string,
  ) {}

  /** Runs the command in the node's network namespace; starts the helper on first use. */
  async exec(command: string[]): Promise<ExecResult> {
    this.helper ??= this.start().catch((err) => {
      this.helper = undefined;
      throw err;
    });
    return execInContainer(await this.helper, command);
  }

  private async start(): Promise<string> {
    this.generation += 1;
    const container = await docker().createContainer({
      Image: NODE_IMAGE,
      name: `lockchaos-${this.runId}-${this.nodeName}-net${this.generation}`,
      Cmd: ['sleep', 'infinity'],
      Labels: runLabels(this.runId, NET_HELPER_ROLE),
      HostConfig: { NetworkMode: `container:${this.nodeContainerId}`, CapAdd: ['NET_ADMIN'] },
    });
    await container.start();
    return container.id;
  }

  /**
   * Removes the helper: a node container started again has a new namespace, and the next
   * exec makes a helper for that one (the rules of the old namespace went with it).
   */
  async remove(): Promise<void> {
    const helper = this.helper;
    this.helper = undefined;
    const id = await helper?.catch(() => undefined);
    if (id)
      await docker()
        .getContainer(id)
        .remove({ force: true })
        .catch(() => undefined);
  }
}
