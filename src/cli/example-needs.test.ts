import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../util/paths.js';
import { exampleClientsCheck } from './doctor-clients.js';
import { EXAMPLE_CLIENTS_DIR, type ExampleNeed, exampleClients } from './example-needs.js';

const clients = exampleClients();
const readme = (name: string) => readFileSync(join(EXAMPLE_CLIENTS_DIR, name, 'README.md'), 'utf8');
/** How a README says to install a need. */
const installWords = (need: ExampleNeed) => ('apt' in need ? `apt-get install ${need.apt}` : need.npm);

/** What scripts/example-needs.mjs prints for `field`, as .ci/run reads it. */
function printed(field: string): string[] {
  const r = spawnSync(process.execPath, [join(packageRoot, 'scripts', 'example-needs.mjs'), field], {
    encoding: 'utf8',
  });
  expect(r.status).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

describe("the example clients' needs (needs.json)", () => {
  it('has a manifest in every example client folder', () => {
    const folders = readdirSync(EXAMPLE_CLIENTS_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(clients.map((c) => c.name)).toEqual(folders);
    for (const c of clients) expect(c.needs.length, c.name).toBeGreaterThan(0);
  });

  it('is what each README says to install, and the README installs nothing else', () => {
    for (const { name, needs } of clients) {
      const text = readme(name);
      for (const need of needs) expect(text, name).toContain(installWords(need));
      const apt = [...text.matchAll(/apt-get install ([\w.+-]+)/g)].map((m) => m[1]);
      const npm = [...text.matchAll(/npm install [^`]*?([@\w./-]+@[\d.]+)`/g)].map((m) => m[1]);
      const named = new Set(needs.map((n) => ('apt' in n ? n.apt : n.npm)));
      for (const p of [...apt, ...npm]) expect(named.has(p as string), `${name}'s README installs ${p}`).toBe(true);
    }
  });

  it("pins npm packages at lockchaos's own devDependencies", () => {
    const dev = (
      JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies;
    const npm = clients.flatMap((c) => c.needs).filter((n) => 'npm' in n);
    expect(npm.length).toBeGreaterThan(0);
    for (const n of npm) expect(`${n.node}@${dev[n.node]}`).toBe(n.npm);
  });

  it('is what CI installs: the script .ci/run reads prints the same lists', () => {
    const all = clients.flatMap((c) => c.needs);
    const unique = (xs: string[]) => [...new Set(xs)];
    expect(printed('apt')).toEqual(unique(all.flatMap((n) => ('apt' in n ? [n.apt] : []))));
    expect(printed('python')).toEqual(unique(all.flatMap((n) => ('python' in n ? [n.python] : []))));
    expect(printed('npm')).toEqual(unique(all.flatMap((n) => ('npm' in n ? [n.npm] : []))));
  });

  it('is what doctor checks: every example is runnable or named with what it lacks', () => {
    const { detail } = exampleClientsCheck();
    for (const c of clients) expect(detail).toContain(c.name);
  });
});
