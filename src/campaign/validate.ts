/**
 * A campaign validated whole and made ready to run: its shape checked (spec.ts), then its
 * matrix expanded (matrix.ts) with the command line's options on every cell, and each
 * cell's run resolved there, once: what the check learned is what the campaign runs (at
 * thousands of cells that is worth doing once). A problem is one UserError line,
 * "SOURCE: PATH: problem".
 */
import { UserError } from '../util/errors.js';
import { type Cell, type CellOptions, expandCells, type ResolvedCell, type Shard, shardCells } from './matrix.js';
import { SchemaError } from './schema.js';
import { type CampaignSpec, campaignShape } from './spec.js';

/** A campaign as read, not yet validated: its data, what names it in messages, where its paths are from. */
export interface CampaignSource {
  /** Parsed YAML, or an object from library code. */
  data: unknown;
  /** The file's path, or what the object is ("campaign", "sweep", "bench"). */
  source: string;
  /** The campaign's name when it gives none: its file's. */
  fallbackName?: string;
  /** The folder its relative paths are taken from (absolute): the file's; absent: the current folder. */
  baseDir?: string;
}

/**
 * A campaign ready to run: validated, every cell of every shard made (in order, the same
 * on every machine), and this shard's cells with their runs resolved.
 */
export interface CampaignPlan<C = ResolvedCell> {
  spec: CampaignSpec;
  shard?: Shard;
  /** Every cell the campaign expands to, all shards', options applied. */
  allCells: Cell[];
  /** The cells to run: this shard's. */
  cells: C[];
}

/**
 * The plan of a campaign file read without running any of it (`campaign --dry-run`): the
 * cells of a module backend not imported are checked without it, and not resolved; the
 * module paths are in `unchecked`.
 */
export interface DryRunPlan extends CampaignPlan<Cell> {
  unchecked: string[];
}

/**
 * The plan of a campaign whose module backends are imported (load.ts): validated, and each
 * cell made with these options and its run resolved, once.
 */
export function planCampaign(given: CampaignSource, options: CellOptions = {}): CampaignPlan {
  return withSource(given.source, () => {
    const spec = specOf(given);
    const every = expandCells(spec, options);
    return { spec, ...shardOf(options), allCells: every, cells: shardCells(every, options.shard) };
  });
}

/** The plan of a campaign whose module backends are not imported: a dry run's. */
export function planDryRun(given: CampaignSource, options: CellOptions = {}): DryRunPlan {
  return withSource(given.source, () => {
    const spec = specOf(given);
    const unchecked = new Set<string>();
    const every = expandCells(spec, options, { modules: 'unchecked', unchecked });
    return {
      spec,
      ...shardOf(options),
      allCells: every,
      cells: shardCells(every, options.shard),
      unchecked: [...unchecked],
    };
  });
}

const specOf = (given: CampaignSource): CampaignSpec =>
  campaignShape(given.data, given.source, given.fallbackName, given.baseDir);

const shardOf = ({ shard }: CellOptions): { shard?: Shard } => (shard ? { shard } : {});

/** A problem with the campaign as one UserError line that names where it is: "SOURCE: PATH: problem". */
function withSource<T>(source: string, plan: () => T): T {
  try {
    return plan();
  } catch (err) {
    if (err instanceof SchemaError) throw new UserError(`${source}: ${err.message}`);
    throw err;
  }
}
