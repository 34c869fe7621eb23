/**
 * The registry of fault kinds, in the order --help and messages list them. A new kind is
 * its own module beside these and one entry here.
 */
import { clientClock } from './client-clock.js';
import { clientClockWarp } from './client-clock-warp.js';
import { clientKill } from './client-kill.js';
import { clientPause } from './client-pause.js';
import { clock } from './clock.js';
import { killNode } from './kill-node.js';
import { latency } from './latency.js';
import { loss } from './loss.js';
import { nodeClock } from './node-clock.js';
import { partition } from './partition.js';
import { pauseNode } from './pause-node.js';
import { wire } from './wire.js';

export const FAULT_KIND_MODULES = [
  clientPause,
  pauseNode,
  killNode,
  partition,
  loss,
  latency,
  clock,
  nodeClock,
  clientClock,
  clientClockWarp,
  clientKill,
  wire,
] as const;
