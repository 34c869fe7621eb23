/**
 * Nights that add up: one store kept from CI run to CI run (restored, merged into, pruned,
 * uploaded), so that `lockchaos serve` over it shows each configuration night after night.
 * A night's merged campaign goes to <store>/campaigns/<name>/<its start>-merged/, beside
 * the nights before it; the store keeps the newest nights up to a limit you choose.
 * A night is a UTC calendar date (of its start), as serve's trends key it: two merges on
 * one date are one night (docs/nightly.md), kept or pruned together, and compared with the
 * night of an earlier date.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readSummary } from './read-summary.js';
import { insideStore } from './store-path.js';

/** A folder name from a time: what `campaign` names its folders by (':' is not portable). */
export const stampOf = (iso: string) => iso.replace(/:/g, '-');

/**
 * Where a night of campaign `name` that started at `startedAt` goes in the store: a path
 * inside it (store-path.ts), else a UserError. `name` and `startedAt` come from a shard
 * (read-summary.ts checks them: a plain name, an ISO time); the store's own links are checked here.
 */
export const nightFolder = (store: string, name: string, startedAt: string) =>
  insideStore(store, join(store, 'campaigns', name, `${stampOf(startedAt)}-merged`), 'write');

interface NightDir {
  dir: string;
  /** YYYY-MM-DD (UTC) of its start. */
  night: string;
  startedAt: string;
}

/** The campaign folders of `name` in the store, with their nights, oldest first (links, such as latest, left out). */
export function nightsOf(store: string, name: string): NightDir[] {
  const parent = join(store, 'campaigns', name);
  if (!existsSync(parent)) return [];
  const out: NightDir[] = [];
  for (const e of readdirSync(parent, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const dir = join(parent, e.name);
    try {
      const { startedAt } = readSummary(dir);
      out.push({ dir, night: startedAt.slice(0, 10), startedAt });
    } catch {
      // not a campaign folder (or being written): not a night
    }
  }
  return out.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/** The newest folder of a night before `night` (YYYY-MM-DD): the one to compare with. */
export function previousNight(store: string, name: string, night: string): string | undefined {
  return nightsOf(store, name)
    .filter((n) => n.night < night)
    .at(-1)?.dir;
}

/** Removes the folders of every night but the newest `keep`; returns the folders removed. */
export function pruneNights(store: string, name: string, keep: number): string[] {
  const all = nightsOf(store, name);
  const kept = new Set([...new Set(all.map((n) => n.night))].slice(-keep));
  const gone = all.filter((n) => !kept.has(n.night)).map((n) => n.dir);
  // Every folder checked before any is removed: a link in the store removes nothing.
  for (const dir of gone) insideStore(store, dir, 'remove');
  for (const dir of gone) rmSync(dir, { recursive: true, force: true });
  return gone;
}
