/** `lockchaos bench`: what each lock costs in latency, throughput, fairness and availability. */
import { resolve as resolvePath } from 'node:path';
import { BACKENDS } from '../backends/index.js';
import { BENCH_DEFAULTS, type BenchSpec, benchCampaign, benchPoints } from '../bench/grid.js';
import { campaignSource } from '../campaign/load.js';
import { loadModuleBackends } from '../campaign/module-backends.js';
import { planCampaign } from '../campaign/validate.js';
import { parseNemesisSpec } from '../nemesis/spec.js';
import { DEFAULTS } from '../run-data/config.js';
import { MIN_BEYOND, samplesNeeded } from '../stats/quantiles.js';
import { UserError } from '../util/errors.js';
import { knownBackend, nameList, numberList, parseCommandArgs, seedOf } from './args.js';
import { CAMPAIGN_RUN_FLAGS, campaignHooksOf, campaignOptionsOf, printJson, runTimeLimit } from './campaign-flags.js';
import { EXIT_INTERRUPTED, whileInterruptible } from './interrupt.js';

const HELP = `Usage: lockchaos bench [options]

What does each lock cost under contention? For each backend, concurrency and backoff
jitter, runs the mutex workload (acquire, hold, release) with no faults (or under one fault
kind) and measures acquire latency (p50, p99, p99.9, p99.99, each with the number of
samples behind it), grants and handoffs per second, fairness (Jain's index of grants per
client), failed acquires and availability. A generated campaign: it runs, shards and stores
as one, in <store>/campaigns/<name>/<timestamp>/, and adds bench.json and bench.html.

Options:
  --backend LIST          backends, or backend modules' paths (default ${BENCH_DEFAULTS.backends.join(',')})
  --concurrency LIST      client counts (default ${BENCH_DEFAULTS.concurrency.join(',')})
  --jitter LIST           backoff jitters in ms, 0 = none (default ${BENCH_DEFAULTS.jitterMs.join(',')})
  --nemesis SPEC          none (default) or one fault kind with its aim (lockchaos run --help)
  --time-limit S          seconds of load a point (default ${BENCH_DEFAULTS.timeLimitS})
  --hold MS               time each holder keeps the lock (default ${BENCH_DEFAULTS.holdMs})
  --target FILE           run on the lock service an inventory describes (docs/targets.md)
  --seed N                every point's seed (default ${BENCH_DEFAULTS.seed})
  --parallel K            points at once (default 1: two at once on 2 cores skew the latencies)
  --shard i/n             run only shard i of n of the points
  --store DIR             where the bench's campaign folder goes (default ${DEFAULTS.storeDir})
  --name NAME             the campaign's name (default bench)
  --dry-run               list the points and exit (no Docker)
  --no-build              stop, instead of building the node image, when it is missing
  --no-latest             write no latest links
  --verbose               print each run's own progress lines
  --json                  print the result as one JSON object on stdout (bench.json's
                          fields with the files; with --dry-run, the points), not the table
  -h, --help              this help

Samples: a tail quantile q is meaningful with at least ${MIN_BEYOND} samples beyond it, n(1-q) >= ${MIN_BEYOND}:
p99 needs ${samplesNeeded(0.99)} grants, p99.9 ${samplesNeeded(0.999)}, p99.99 ${samplesNeeded(0.9999)}; fewer are marked *. The
default bench (4 backends x 3 concurrencies x 2 jitters, 6 s each) took 5 minutes on a
quiet 2-core machine (8-24 s a point) and gives tens to hundreds of grants a point: no p99
is meaningful. Raise --time-limit for tails.

Exit codes: 0 every point measured, 1 a point's run failed, 3 error (a bad flag, no Docker
engine), 130 interrupted.`;

const OPTIONS = {
  backend: { type: 'string' },
  concurrency: { type: 'string' },
  jitter: { type: 'string' },
  nemesis: { type: 'string' },
  'time-limit': { type: 'string' },
  hold: { type: 'string' },
  target: { type: 'string' },
  seed: { type: 'string' },
  name: { type: 'string' },
  'dry-run': { type: 'boolean' },
  ...CAMPAIGN_RUN_FLAGS,
  help: { type: 'boolean', short: 'h' },
} as const;

function jitterList(text: string): number[] {
  const items = text.split(',').map((x) => Number(x.trim()));
  if (text.split(',').some((x) => x.trim() === '') || items.some((x) => !Number.isFinite(x) || x < 0)) {
    throw new UserError(`--jitter takes numbers >= 0 (ms) separated by commas (e.g. 25,0), got '${text}'`);
  }
  return items;
}

export function benchSpecFromArgs(values: Record<string, string | boolean | undefined>): BenchSpec {
  const s = (k: string) => values[k] as string | undefined;
  const nemesis = s('nemesis') ?? BENCH_DEFAULTS.nemesis;
  if (nemesis.trim() === '') throw new UserError('--nemesis is empty: give none, or one fault kind');
  if (parseNemesisSpec(nemesis).length > 1) {
    throw new UserError(`--nemesis takes none or one fault kind for a bench, got '${nemesis}'`);
  }
  const seed = seedOf(s('seed'), BENCH_DEFAULTS.seed);
  return {
    backends: (s('backend') === undefined
      ? [...BENCH_DEFAULTS.backends]
      : nameList('backend', s('backend') as string)
    ).map((b) => knownBackend('backend', b, Object.keys(BACKENDS))),
    concurrency:
      s('concurrency') === undefined
        ? [...BENCH_DEFAULTS.concurrency]
        : numberList('concurrency', s('concurrency') as string, { integer: true }),
    jitterMs: s('jitter') === undefined ? [...BENCH_DEFAULTS.jitterMs] : jitterList(s('jitter') as string),
    nemesis: nemesis.trim(),
    timeLimitS: s('time-limit') === undefined ? BENCH_DEFAULTS.timeLimitS : runTimeLimit(s('time-limit') as string),
    holdMs: s('hold') === undefined ? BENCH_DEFAULTS.holdMs : Number(s('hold')),
    seed,
    name: s('name') ?? 'bench',
    ...(s('target') === undefined ? {} : { target: resolvePath(s('target') as string) }),
  };
}

export async function benchCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, OPTIONS, 'bench', { positionals: false });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (typeof values.backend === 'string') await loadModuleBackends(values.backend.split(',').map((b) => b.trim()));
  const spec = benchSpecFromArgs(values);
  const options = campaignOptionsOf(values);
  if (values['dry-run']) {
    // Every point checked, as bench() checks them before it starts anything (an unknown
    // backend, a fault it cannot take, a bad hold); checked here only when bench() is not
    // called, since the check expands and resolves every cell.
    planCampaign(campaignSource(benchCampaign(spec), 'bench'));
    const points = benchPoints(spec);
    if (values.json) {
      printJson({ name: spec.name, timeLimitS: spec.timeLimitS, points });
      return 0;
    }
    console.log(`bench ${spec.name}: ${points.length} points of ${spec.timeLimitS} s`);
    for (const p of points) console.log(`  ${p.backend}  ${p.concurrency} clients  jitter ${p.jitterMs} ms`);
    return 0;
  }
  const { bench } = await import('../bench/run.js');
  const { benchJson, benchTable } = await import('../bench/html.js');
  return whileInterruptible('bench', async (signal) => {
    const out = await bench(spec, options, campaignHooksOf(values, signal));
    if (values.json) printJson({ ...JSON.parse(benchJson(out.report)), dir: out.report.dir, files: out.files });
    else {
      console.log(benchTable(out.report));
      console.log(`bench.html: ${out.files.benchHtml} (${Math.round(out.report.durationS)} s)`);
    }
    if (out.campaign.interrupted) return EXIT_INTERRUPTED;
    return out.campaign.met ? 0 : 1;
  });
}
