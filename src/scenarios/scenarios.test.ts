/**
 * The scenario table's consistency: each story resolves to a run on every backend it names
 * (as `lockchaos run --scenario` checks one, before any container starts), with the outcome
 * its table row promises where that outcome is a refusal, and the shipped example clients
 * each have their story. No container is started.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../backends/index.js';
import { resolveRun } from '../run-data/resolve.js';
import { UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';
import { resolveScenario, SCENARIOS, type Scenario, scenarioByName, scenarioRunsOn } from './index.js';

const scenarios = Object.values(SCENARIOS);

/** Resolves scenario `s` on `backend`, fenced or not, as a run of it would. */
const resolveOn = (s: Scenario, backend: string, fencing: boolean) => {
  const { config } = resolveScenario(s.name, { over: { backend, fencing } });
  return resolveRun({ ...config, name: `${s.name}-test`, seed: 1 });
};

describe('the scenario table', () => {
  it('finds each scenario by its own name', () => {
    expect(scenarios.length).toBeGreaterThan(5);
    for (const [name, s] of Object.entries(SCENARIOS)) expect(scenarioByName(name)).toBe(s);
    expect(scenarioByName('no-such-story')).toBeUndefined();
    expect(scenarioByName('constructor')).toBeUndefined();
  });

  it('says what each story is, where it was told, and what to expect', () => {
    for (const s of scenarios) {
      expect(s.description, s.name).not.toBe('');
      expect(s.source, s.name).not.toBe('');
      for (const e of [s.expected.unfenced, s.expected.fenced])
        expect(['valid', 'invalid', 'error'], s.name).toContain(e);
    }
  });

  it('runs each story on built-in backends only, its own first and none twice', () => {
    for (const s of scenarios) {
      const { backend } = scenarioRunsOn(s);
      expect(backend[0], s.name).toBe(s.config.backend ?? backend[0]);
      expect(new Set(backend).size, s.name).toBe(backend.length);
      for (const b of backend) expect(Object.keys(BACKENDS), s.name).toContain(b);
    }
  });

  it('runs the control on every built-in backend: a false alarm anywhere is lockchaos’s', () => {
    const control = scenarioByName('control') as Scenario;
    expect(scenarioRunsOn(control).backend.toSorted()).toEqual(Object.keys(BACKENDS).toSorted());
  });

  it('resolves each story on each of its backends unfenced, and fenced as its row expects on its own', () => {
    expect(scenarios.filter((s) => s.expected.fenced === 'error').length).toBeGreaterThan(0);
    for (const s of scenarios) {
      const [own, ...others] = scenarioRunsOn(s).backend as [string, ...string[]];
      for (const b of [own, ...others]) expect(() => resolveOn(s, b, false), `${s.name} on ${b}`).not.toThrow();
      const fenced = () => resolveOn(s, own, true);
      if (s.expected.fenced === 'error') expect(fenced, s.name).toThrow(UserError);
      else expect(fenced, s.name).not.toThrow();
    }
  });

  it('names a client program that is there, and every shipped example client has its story', () => {
    const examples = join(packageRoot, 'examples', 'clients');
    const told = new Set<string>();
    for (const s of scenarios) {
      const program = s.config.clientCommand?.split(' ').at(-1);
      if (program === undefined) continue;
      expect(existsSync(program), s.name).toBe(true);
      told.add(program.slice(examples.length + 1).split('/')[0] as string);
    }
    const shipped = readdirSync(examples, { withFileTypes: true }).filter((e) => e.isDirectory());
    expect([...told].sort()).toEqual(shipped.map((e) => e.name).sort());
  });
});

describe('resolveScenario', () => {
  it('lays the scenario over the defaults given, and what is given over it, and records it', () => {
    const { config } = resolveScenario('control', { under: { ttlMs: 9000, concurrency: 7 }, over: { holdMs: 5 } });
    expect(config).toMatchObject({ scenario: 'control', ttlMs: 2000, concurrency: 7, holdMs: 5, nemesis: 'none' });
  });

  it('names the nearest scenario for a misspelt one', () => {
    expect(() => resolveScenario('gc-pauze')).toThrow(/unknown scenario 'gc-pauze'.*gc-pause/);
    expect(resolveScenario(undefined).scenario).toBeUndefined();
  });
});
