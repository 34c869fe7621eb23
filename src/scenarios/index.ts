/**
 * Scenario presets: the published failure stories, each a ready configuration with its
 * source and the outcome expected with and without fencing. `lockchaos scenarios` lists
 * them; `lockchaos run --scenario NAME [--fencing on|off]` runs one.
 */
import type { TestConfig } from '../runner/config.js';

/** What a scenario should end with: a verdict, or an error (e.g. fencing on Redlock). */
export type Expected = 'valid' | 'invalid' | 'error';

export interface Scenario {
  name: string;
  /** What it reproduces, in a sentence or two. */
  description: string;
  /** Where the story was published. */
  source: string;
  expected: { unfenced: Expected; fenced: Expected };
  /** The configuration it runs (fencing and seed come from the command line). */
  config: Partial<Omit<TestConfig, 'fencing' | 'seed' | 'storeDir'>>;
}

export const SCENARIOS: Record<string, Scenario> = {
  control: {
    name: 'control',
    description: 'no faults, holds far shorter than the TTL: a correct configuration that must never raise an alarm',
    source: 'lockchaos: the false-alarm check',
    expected: { unfenced: 'valid', fenced: 'valid' },
    config: { backend: 'redis', workload: 'lock-set', nemesis: 'none', ttlMs: 2000, holdMs: 20 },
  },
};

export function scenarioByName(name: string): Scenario | undefined {
  return Object.hasOwn(SCENARIOS, name) ? SCENARIOS[name] : undefined;
}
