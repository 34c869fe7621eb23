/** `lockchaos sweep`: how likely is a violation, at which pause lengths: observed against the formula. */
import { resolve as resolvePath } from 'node:path';
import { BACKENDS, backendByName } from '../backends/index.js';
import { campaignSource } from '../campaign/load.js';
import { loadModuleBackends } from '../campaign/module-backends.js';
import { DEFAULTS, fencingWord } from '../run-data/config.js';
import { DRIFT_AIMS, DRIFT_RHO_BOUNDS, driftAim, driftPoints } from '../sweep/drift-grid.js';
import { SWEEP_DEFAULTS, type SweepSpec, sweepPoints } from '../sweep/grid.js';
import { sweep } from '../sweep/run.js';
import { UserError } from '../util/errors.js';
import { knownBackend, numberList, onOff, parseCommandArgs, positiveNumber, seedOf } from './args.js';
import { CAMPAIGN_RUN_FLAGS, campaignHooksOf, campaignOptionsOf, printJson, runTimeLimit } from './campaign-flags.js';
import { EXIT_INTERRUPTED, whileInterruptible } from './interrupt.js';

const DRIFT_EXAMPLE = '0,0.005,0.25,0.5,1,2';
/** A drift runs a TTL at least, a fault every few seconds: long enough for several a run. */
const DRIFT_TIME_LIMIT_S = 30;
const DRIFT_INTERVAL_S = 3;

const HELP = `Usage: lockchaos sweep [options]

How likely is a violation at a given pause length and TTL? Runs the lock-set workload under
client pauses of a fixed length (a multiple of the TTL) over a grid of points, N trials
each, and compares the share of runs in which two clients held the lock at once with the
formula P = 1 - prod_i (1 - P(Pause_i > T_valid)), computed from the pauses as measured
and the validity each holder believed. The sweep is a generated campaign: it runs, shards
and stores as one, in <store>/campaigns/<name>/<timestamp>/, and adds sweep.json and
sweep.html (plot, table, and the runs where formula and observation disagree).

With --drift, the axis is a clock's rate instead: the real clock of the process that keeps
the lease (Redlock: the shared master during a clients-majorities split; Redis: the server;
etcd, ZooKeeper: the leader) runs at 1 + rho (node-clock, by ptrace), one point per rho,
against the bound the lock assumes: a lease granted once lives TTL/(1 + rho) of true time,
past the client's drift allowance and, once rho > TTL/hold - 1, past a hold; a lease renewed
every third of its TTL lapses once rho > 2. rho = 0 is the control (no clock moved).

Options:
  --backend NAME|PATH     lock service (default ${DEFAULTS.backend}), or a backend module's path
  --fencing on|off        fenced store (default off); on: every point expects no data violation
  --pause-ttl LIST        client pause lengths as multiples of the TTL (default ${SWEEP_DEFAULTS.pauseTtl.join(',')})
  --drift LIST            a drift sweep: the lease keeper's clock rates rho, ${DRIFT_RHO_BOUNDS.min} to ${DRIFT_RHO_BOUNDS.max}
                          (e.g. ${DRIFT_EXAMPLE}); on ${Object.keys(DRIFT_AIMS).join(', ')}; TTL, hold and time limit
                          then default to the backend's story (Redlock: 3000, 2000, ${DRIFT_TIME_LIMIT_S} s)
  --ttl LIST              lease TTLs in ms (default ${SWEEP_DEFAULTS.ttlMs.join(',')})
  --concurrency LIST      client counts (default ${SWEEP_DEFAULTS.concurrency.join(',')})
  --trials N              runs per point, seeds --seed, --seed+1, ... (default ${SWEEP_DEFAULTS.trials})
  --seed N                the first trial's seed (default ${SWEEP_DEFAULTS.firstSeed})
  --time-limit S          seconds of each run (default ${SWEEP_DEFAULTS.timeLimitS})
  --nemesis-interval S    mean seconds between pauses (default ${SWEEP_DEFAULTS.nemesisIntervalS})
  --hold MS               hold time under the lock (default ${SWEEP_DEFAULTS.holdMs})
  --target FILE           run on the lock service an inventory describes (docs/targets.md)
  --parallel K            runs at once, each with its own cluster (default 1; 2 on 2 cores)
  --shard i/n             run only shard i of n of the cells (sweep.json then covers those)
  --store DIR             where the sweep's campaign folder goes (default ${DEFAULTS.storeDir})
  --name NAME             the campaign's name (default sweep-<backend>-<fenced|unfenced>)
  --dry-run               list the points and the number of runs, and exit (no Docker)
  --no-build              stop, instead of building the node image, when it is missing
  --no-latest             write no latest links
  --verbose               print each run's own progress lines
  --json                  print the result as one JSON object on stdout (sweep.json's
                          fields with the files; with --dry-run, the points), not the table
  -h, --help              this help

Duration: about (time limit + 8 s) x points x trials / parallel; the defaults, 7 points x 5
trials of 10 s, take about 10 minutes one at a time.

Exit codes: 0 done (and, fenced, no data violation at any point), 1 a fenced point with a
data violation or a run that failed, 3 error (a bad flag, no Docker engine), 130 interrupted.`;

/** "0,0.005,1" → rates; each from −0.9 to 10, none twice. */
export function driftList(text: string): number[] {
  const items = text.split(',').map((x) => x.trim());
  const rates = items.map((x) => (/^-?\d+(?:\.\d+)?$/.test(x) ? Number(x) : Number.NaN));
  const bad = rates.findIndex((r) => !(r >= DRIFT_RHO_BOUNDS.min && r <= DRIFT_RHO_BOUNDS.max));
  if (bad >= 0) {
    throw new UserError(
      `--drift takes clock rates rho from ${DRIFT_RHO_BOUNDS.min} to ${DRIFT_RHO_BOUNDS.max} separated by commas (e.g. ${DRIFT_EXAMPLE}), got '${items[bad]}'`,
    );
  }
  if (new Set(rates).size !== rates.length) throw new UserError(`--drift names a rate twice: '${text}'`);
  return rates;
}

const OPTIONS = {
  backend: { type: 'string' },
  drift: { type: 'string' },
  fencing: { type: 'string' },
  'pause-ttl': { type: 'string' },
  ttl: { type: 'string' },
  concurrency: { type: 'string' },
  trials: { type: 'string' },
  seed: { type: 'string' },
  'time-limit': { type: 'string' },
  'nemesis-interval': { type: 'string' },
  hold: { type: 'string' },
  target: { type: 'string' },
  name: { type: 'string' },
  'dry-run': { type: 'boolean' },
  ...CAMPAIGN_RUN_FLAGS,
  help: { type: 'boolean', short: 'h' },
} as const;

export function sweepSpecFromArgs(values: Record<string, string | boolean | undefined>): SweepSpec {
  const s = (k: string) => values[k] as string | undefined;
  const fenced = onOff('fencing', s('fencing'));
  const backend = s('backend') ?? DEFAULTS.backend;
  if (backend.includes(',')) throw new UserError(`--backend takes one backend per sweep, got '${backend}'`);
  knownBackend('backend', backend, Object.keys(BACKENDS));
  const seed = seedOf(s('seed'), SWEEP_DEFAULTS.firstSeed);
  const opt = <T>(k: string, parse: (text: string) => T, fallback: T): T => {
    const text = s(k);
    return text === undefined ? fallback : parse(text);
  };
  const drift = opt('drift', (t): number[] | undefined => driftList(t), undefined);
  const aim = drift ? driftAim(backend) : undefined;
  if (drift && s('pause-ttl') !== undefined) {
    throw new UserError('--drift and --pause-ttl are two sweeps: give one axis (drop --pause-ttl for a drift sweep)');
  }
  return {
    backend,
    fencing: fenced,
    pauseTtl: opt('pause-ttl', (t) => numberList('pause-ttl', t), [...SWEEP_DEFAULTS.pauseTtl]),
    ttlMs: opt('ttl', (t) => numberList('ttl', t, { integer: true }), aim ? [aim.ttlMs] : [...SWEEP_DEFAULTS.ttlMs]),
    concurrency: opt('concurrency', (t) => numberList('concurrency', t, { integer: true }), [
      ...SWEEP_DEFAULTS.concurrency,
    ]),
    trials: opt('trials', (t) => positiveNumber('trials', t, true), SWEEP_DEFAULTS.trials),
    firstSeed: seed,
    timeLimitS: opt('time-limit', runTimeLimit, aim ? DRIFT_TIME_LIMIT_S : SWEEP_DEFAULTS.timeLimitS),
    nemesisIntervalS: opt(
      'nemesis-interval',
      (t) => positiveNumber('nemesis-interval', t, false),
      aim ? DRIFT_INTERVAL_S : SWEEP_DEFAULTS.nemesisIntervalS,
    ),
    holdMs: opt('hold', (t) => positiveNumber('hold', t, false), aim ? aim.holdMs : SWEEP_DEFAULTS.holdMs),
    // A module backend by its own name (once loaded: sweepCommand loads it first).
    name:
      s('name') ??
      `sweep-${drift ? 'drift-' : ''}${(backendByName(backend)?.name ?? backend).replace(/[^A-Za-z0-9._-]/g, '_')}-${fencingWord(fenced)}`,
    ...(s('target') === undefined ? {} : { target: resolvePath(s('target') as string) }),
    ...(drift ? { drift } : {}),
  };
}

export async function sweepCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, OPTIONS, 'sweep', { positionals: false });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (typeof values.backend === 'string') await loadModuleBackends([values.backend]);
  const spec = sweepSpecFromArgs(values);
  const options = campaignOptionsOf(values);
  const points = spec.drift ? driftPoints({ ...spec, drift: spec.drift }) : sweepPoints(spec);
  const pointWords = (p: (typeof points)[number]) =>
    'rho' in p
      ? `clock at 1 + ${p.rho}, TTL ${p.ttlMs} ms, hold ${spec.holdMs} ms, ${p.concurrency} clients`
      : `pause ${p.pauseTtl} x TTL, TTL ${p.ttlMs} ms, ${p.concurrency} clients`;
  if (values['dry-run']) {
    const { planCampaign } = await import('../campaign/validate.js');
    const { sweepCampaign } = await import('../sweep/grid.js');
    planCampaign(campaignSource(sweepCampaign(spec), 'sweep'));
    if (values.json) {
      printJson({ name: spec.name, trials: spec.trials, runs: points.length * spec.trials, points });
      return 0;
    }
    console.log(
      `sweep ${spec.name}: ${points.length} points x ${spec.trials} trials = ${points.length * spec.trials} runs`,
    );
    for (const p of points) console.log(`  ${pointWords(p)}`);
    return 0;
  }
  return whileInterruptible('sweep', async (signal) => {
    const out = await sweep(spec, options, campaignHooksOf(values, signal));
    if (values.json) {
      const { sweepJson } = await import('../sweep/html.js');
      printJson({ ...JSON.parse(sweepJson(out.result)), dir: out.result.dir, files: out.files });
    } else {
      console.log(out.table);
      console.log(`sweep.html: ${out.files.sweepHtml}`);
    }
    if (out.campaign.interrupted) return EXIT_INTERRUPTED;
    return out.campaign.met ? 0 : 1;
  });
}
