/** The workloads lockchaos knows by name. */
import { lockSetWorkload } from './lock-set.js';
import { mutexWorkload } from './mutex.js';
import type { Workload } from './workload.js';

export const WORKLOADS: Record<string, Workload> = {
  'lock-set': lockSetWorkload,
  mutex: mutexWorkload,
};

export function workloadByName(name: string): Workload | undefined {
  return Object.hasOwn(WORKLOADS, name) ? WORKLOADS[name] : undefined;
}

export type { Workload, WorkloadOptions } from './workload.js';
