/**
 * What a run does to hosts it did not create must be undone even when its runner is killed
 * (kill -9, a CI job's time limit). Before the first command reaches a target, the run
 * writes a ledger entry on this machine: its id, its runner (the owner label, as on its
 * containers), and the target's nodes with their channels. At the end the heal removes the
 * entry once every node is healed; the next start (and `lockchaos cleanup`) heals the nodes
 * of every entry whose runner is gone. (A runner whose machine went with it, a CI job's
 * container, leaves its record on the hosts too: heal.ts's healHosts.) The entry holds how to reach a host (user, address, a key's path), never a
 * key or a password; it is the user's own file (0600) outside any run folder.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerAlive, ownerLabel } from '../cluster/labels.js';
import { stateDir } from '../util/paths.js';
import type { TargetNode } from './inventory.js';

export interface LedgerEntry {
  runId: string;
  owner: string;
  nodes: TargetNode[];
  /** Existing containers this run killed and has not started again (docker channel). */
  killed: string[];
  /**
   * Processes on a node's host whose clock the run warped and has not restored yet
   * (node-clock over SSH): the heal restores them (with the host's own record of each).
   */
  warped: { node: string; pid: number }[];
}

/** Where the entries are: the runner's state folder's targets/. */
export function ledgerDir(): string {
  return join(stateDir(), 'targets');
}

const entryPath = (runId: string) => join(ledgerDir(), `${runId}.json`);

export class Ledger {
  private readonly entry: LedgerEntry;
  constructor(runId: string, nodes: TargetNode[]) {
    this.entry = { runId, owner: ownerLabel(), nodes, killed: [], warped: [] };
  }
  /** Written (and rewritten) before the step it records reaches a host. */
  save() {
    mkdirSync(ledgerDir(), { recursive: true, mode: 0o700 });
    writeFileSync(entryPath(this.entry.runId), `${JSON.stringify(this.entry, null, 2)}\n`, { mode: 0o600 });
  }
  markKilled(node: string, killed: boolean) {
    this.entry.killed = this.entry.killed.filter((n) => n !== node);
    if (killed) this.entry.killed.push(node);
    this.save();
  }
  /** A warp recorded before it reaches the host (warped), forgotten once its process has true time again. */
  markWarped(node: string, pid: number, warped: boolean) {
    this.entry.warped = this.entry.warped.filter((w) => w.node !== node || w.pid !== pid);
    if (warped) this.entry.warped.push({ node, pid });
    this.save();
  }
  /** What the entry holds now (a copy). */
  get recorded(): LedgerEntry {
    return structuredClone(this.entry);
  }
  remove() {
    rmSync(entryPath(this.entry.runId), { force: true });
  }
}

/** The entries whose runner is gone (or all, for `cleanup --all`). */
export function orphanedEntries(which: 'orphaned' | 'all' = 'orphaned'): LedgerEntry[] {
  let names: string[];
  try {
    names = readdirSync(ledgerDir()).filter((n) => /^[0-9a-f]+\.json$/.test(n));
  } catch {
    return [];
  }
  const entries: LedgerEntry[] = [];
  for (const name of names) {
    try {
      const entry = JSON.parse(readFileSync(join(ledgerDir(), name), 'utf8')) as LedgerEntry;
      if (which === 'all' || !ownerAlive(entry.owner))
        entries.push({ ...entry, killed: entry.killed ?? [], warped: entry.warped ?? [] });
    } catch {
      // A half-written entry: its run died before its first command reached a host.
      rmSync(join(ledgerDir(), name), { force: true });
    }
  }
  return entries;
}

export const forgetEntry = (runId: string) => rmSync(entryPath(runId), { force: true });
