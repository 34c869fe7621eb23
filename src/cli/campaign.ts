/** `lockchaos campaign FILE.yaml`: a matrix of runs with expected verdicts, for nightly CI. */

import { cpSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadCampaign, readCampaignPlan } from '../campaign/load.js';
import { mergeCampaign } from '../campaign/merge.js';
import { summaryHtml, terminalTable } from '../campaign/report.js';
import { type CampaignOptions, runCampaign } from '../campaign/run.js';
import { flipsSince } from '../campaign-data/flips.js';
import { nightFolder, nightsOf, previousNight, pruneNights } from '../campaign-data/nights.js';
import { readSummary } from '../campaign-data/read-summary.js';
import { copyNoLink, insideStore } from '../campaign-data/store-path.js';
import { summaryJson } from '../campaign-data/write-summary.js';
import { DEFAULTS } from '../run-data/config.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/errors.js';
import { plural } from '../util/plural.js';
import { parseCommandArgs, positiveNumber } from './args.js';
import {
  CAMPAIGN_RUN_FLAGS,
  campaignHooksOf,
  campaignOptionsOf,
  printJson,
  runTimeLimit,
  type Values,
} from './campaign-flags.js';
import { EXIT_INTERRUPTED, whileInterruptible } from './interrupt.js';
import { JOB_SUMMARY_FLAGS, JOB_SUMMARY_HELP, previousOf, writeJobSummary } from './job-summary.js';

const HELP = `Usage: lockchaos campaign FILE.yaml [options]
       lockchaos campaign merge DIR... [--out DIR]   (shards into one summary: --help there)

Runs a matrix of tests, backend x workload x (nemesis or scenario) x fencing x seeds, and
compares each run's verdict with the one the file expects, both ways: a correct
configuration that raises an alarm is a regression, and so is a known-unsafe one that
stops failing. Writes <store>/campaigns/<name>/<timestamp>[-shard-i-of-n]/ with every
run's folder (runs/), summary.html, summary.json and junit.xml (one test case per run).

The file (see examples/nightly.yaml and docs/nightly.md):

  name: nightly
  seeds: [1, 2]
  defaults: { time-limit: 20, nemesis-interval: 2 }
  matrix:
    - backend: [redis, redlock]
      nemesis: [none, client-pause]
      fencing: off
      expect: valid
      overrides:
        - when: { nemesis: client-pause }
          expect: invalid

Options:
  --shard i/n        run only shard i of n: cell k (in file order) goes to shard (k mod n) + 1
  --parallel K       runs at once in this process, each with its own cluster (default 1)
  --time-limit S     override every cell's time limit (seconds)
  --time-budget S    the campaign's own limit (seconds): past it, runs in progress heal and
                     tear down, no more start, and the summary says cut short by its time
                     budget with the cells that never ran (set it below a CI job's limit,
                     which kills without a word)
  --stop-on-violation  end every cell at the first violation a checker will count, then heal
                     and check (by default only cells that expect invalid stop early: an
                     invalid cell costs seconds; cells that stay valid run in full)
  --full-time        run every cell its full time limit, also those that expect invalid
  --shrink           shrink every cell that expected valid and was invalid (as shrink: true in
                     the file); summary.html links each smallest reproducer
  --store DIR        where campaigns and their runs are written (default ${DEFAULTS.storeDir})
  --dry-run          read and validate the file and list this shard's cells, exit 0 (needs
                     no Docker); it runs nothing: no module backend is imported (so what
                     only the module can say, its options, fencing and faults, is not
                     checked: it says so), no client-command run, no Dockerfile built
  --schema           print the campaign file's JSON Schema (also examples/campaign.schema.json)
  --no-build         stop, instead of building the node image, when it is missing
  --no-latest        write no latest links (stores uploaded as CI artifacts)
  --verbose          print each run's own progress lines
  --json             print the result as one JSON object on stdout (summary.json's fields
                     with the folder and files; with --dry-run, the cells), not the table
${JOB_SUMMARY_HELP}
  -h, --help         this help

A campaign file is code: a run imports the module backends it names, runs its
client-command programs and builds its Dockerfiles, all as you. Run only campaign files
you trust (in CI: from the default branch, never from a pull request); read one you do not
with --dry-run, which runs none of it.

While it runs, summary.html, summary.json and junit.xml say so (n of N cells, elapsed,
about how long is left) and are rewritten as cells end; a campaign stopped by a signal or
its time budget says cut short, and names the cells that never ran. One killed outright
still says running on disk: lockchaos serve and campaign merge tell it is gone.

Exit codes: 0 every cell met its expectation, 1 some did not (a mismatch, or a run that
failed with an error, or cut short by its time budget), 3 error (a bad campaign file or flag, no Docker engine), 130
interrupted (Ctrl-C: runs in progress heal and tear down; finished cells are written).`;

const OPTIONS = {
  ...CAMPAIGN_RUN_FLAGS,
  ...JOB_SUMMARY_FLAGS,
  'time-limit': { type: 'string' },
  'time-budget': { type: 'string' },
  'stop-on-violation': { type: 'boolean' },
  'full-time': { type: 'boolean' },
  shrink: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  schema: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const MERGE_HELP = `Usage: lockchaos campaign merge DIR... [--out DIR | --store STORE [--keep-nights N]]

Combines the folders of one campaign's shards (each run with --shard i/n, e.g. one CI job
each) into one summary.html, summary.json and junit.xml with the tally of every
configuration over all its seeds, as if the campaign had run unsharded. Every run folder
the summary links is copied into the merged folder (runs/), so that it can be uploaded or
moved alone. Shards not given are named as missing.

With --store, the night goes into a store kept from night to night (restored before, and
saved after, in CI): <STORE>/campaigns/<name>/<start>-merged/, beside every earlier night,
which stay; lockchaos serve --store STORE shows them night after night. The previous night
there is compared with: summary.html and the Markdown summary name what flipped. With
--out as well, the night is written there and copied into the store.

Options:
  --out DIR          where the merged files go (default: <the first shard's parent>/<timestamp>-merged)
  --store STORE      add the night to this store, beside the nights already there
  --keep-nights N    with --store: keep the newest N nights of this campaign, remove older ones
${JOB_SUMMARY_HELP}
  --no-latest        accepted as the campaign takes it (a merge writes no latest link)
  -h, --help         this help

Example (a nightly CI job, after the shards' artifacts are downloaded into shards/):
  lockchaos campaign merge shards/*/campaigns/*/* --out merged --store nights --keep-nights 30

A night is a UTC date (of its earliest shard's start): two merges on one date are one
night, compared with the night of the date before and kept or pruned together. A shard's
name and times name the night's folder: a name that is not a plain name, or a time not an
ISO time, is refused, and nothing is written or removed that resolves outside the store.
Links in a shard are not copied.

Exit codes: 0 every cell met its expectation and none is missing, 1 otherwise, 3 error
(a folder that is not a campaign, shards of different campaigns, a cell or a shard given
twice, unsharded folders of different starts, a path that would leave the store).`;

const MERGE_OPTIONS = {
  ...JOB_SUMMARY_FLAGS,
  out: { type: 'string' },
  store: { type: 'string' },
  'keep-nights': { type: 'string' },
  'no-latest': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function mergeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, MERGE_OPTIONS, 'campaign merge');
  if (values.help) {
    console.log(MERGE_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UserError('give the shard folders: lockchaos campaign merge DIR...');
  const store = values.store as string | undefined;
  const keepText = values['keep-nights'] as string | undefined;
  if (keepText !== undefined && store === undefined) {
    throw new UserError('--keep-nights prunes a store: give it with --store STORE');
  }
  const keep = keepText === undefined ? undefined : positiveNumber('keep-nights', keepText, true);
  const [one, ...more] = positionals.map((dir) => readSummary(dir));
  if (one === undefined) throw new UserError('give the shard folders: lockchaos campaign merge DIR...');
  const first = [one, ...more].map((s) => s.startedAt).sort()[0] ?? one.startedAt;
  const { name } = one;
  // The night in the store; with --out as well, tonight's folder alone there too (an artifact, its junit.xml).
  const night = store === undefined ? undefined : nightFolder(store, name, first);
  const previousDir = store === undefined ? undefined : previousNight(store, name, first.slice(0, 10));
  const sameNight =
    store === undefined
      ? undefined
      : nightsOf(store, name).find((n) => n.night === first.slice(0, 10) && resolve(n.dir) !== resolve(night ?? ''));
  if (sameNight) {
    // A night is a UTC date (nights.ts): a second merge that date is no night of its own.
    console.error(
      `the store already holds a night of ${sameNight.night} (${sameNight.dir}): a night is a UTC date, so this merge is compared with the night before it${previousDir ? ` (${previousDir})` : ' (none)'}, not with that one, and --keep-nights keeps or removes the two together`,
    );
  }
  const out =
    (values.out as string | undefined) ??
    night ??
    join(dirname(resolve(positionals[0] as string)), `${new Date().toISOString().replace(/:/g, '-')}-merged`);
  // The night before, read before the store is pruned: the page and the job summary name what flipped since.
  const previous =
    values.previous !== undefined
      ? previousOf(values.previous as string, { name, startedAt: first })
      : previousDir !== undefined
        ? readSummary(previousDir)
        : undefined;
  const { summary, skippedLinks } = mergeCampaign(positionals, out, {
    ...(night !== undefined && resolve(out) === resolve(night) ? { store } : {}),
    ...(previous ? { previous } : {}),
  });
  console.log(terminalTable(summary));
  if (skippedLinks.length > 0) {
    console.error(
      `${plural(skippedLinks.length, 'symbolic link')} in the shards not copied (a merge copies no link), e.g. ${skippedLinks[0]}`,
    );
  }
  if (night !== undefined && resolve(night) !== resolve(out)) {
    // summary.json and summary.html link relative to their folder: the copy is whole where it lands.
    const links: string[] = [];
    cpSync(out, night, { recursive: true, filter: copyNoLink(links, (p) => insideStore(store as string, p, 'write')) });
    if (links.length > 0) console.error(`${plural(links.length, 'symbolic link')} in ${out} not copied into the store`);
    console.log(`night added to the store: ${night}`);
  }
  if (store !== undefined && keep !== undefined) {
    const gone = pruneNights(store, summary.name, keep);
    if (gone.length) console.log(`kept the newest ${plural(keep, 'night')} in ${store}: removed ${gone.join(', ')}`);
  }
  for (const f of writeJobSummary(summary, values, {
    ...(previous ? { previous } : {}),
    artifactRoot: values.out === undefined ? (store ?? out) : out,
  }))
    console.error(`summary in Markdown: ${f}`);
  return summary.met ? 0 : 1;
}

export async function campaignCommand(argv: string[]): Promise<number> {
  if (argv[0] === 'merge') return mergeCommand(argv.slice(1));
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, 'campaign');
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.schema) {
    const { campaignJsonSchema } = await import('../campaign/campaign-json-schema.js');
    console.log(JSON.stringify(campaignJsonSchema(), null, 2));
    return 0;
  }

  if (positionals.length !== 1) {
    throw new UserError(
      positionals.length === 0
        ? 'give the campaign file: lockchaos campaign FILE.yaml (see lockchaos campaign --help)'
        : `give one campaign file, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  const file = positionals[0] as string;
  const s = (k: string) => values[k] as string | undefined;
  // Every option once, here: planning the campaign puts them on its cells.
  const options: CampaignOptions & { parallel: number } = {
    ...campaignOptionsOf(values),
    timeLimitS: s('time-limit') === undefined ? undefined : runTimeLimit(s('time-limit') as string),
    stopOnViolation: values['stop-on-violation'] === true,
    fullTime: values['full-time'] === true,
    shrink: values.shrink === true,
    ...(s('time-budget') === undefined
      ? {}
      : { timeBudgetS: positiveNumber('time-budget', s('time-budget') as string, false) }),
  };
  return values['dry-run'] ? dryRun(file, options, values.json === true) : runFile(file, options, values);
}

/** --dry-run: the file read and validated, this shard's cells listed; nothing of it imported or run. */
function dryRun(file: string, options: CampaignOptions, json: boolean): number {
  const { spec, shard, allCells, cells, unchecked } = readCampaignPlan(file, options);
  const notChecked = unchecked.map(
    (m) => `module backend ${m} not imported (a dry run runs no code): its options, fencing and faults not checked`,
  );
  if (json) {
    printJson({ name: spec.name, shard: shard ?? null, totalCells: allCells.length, cells, notChecked });
    return 0;
  }
  console.log(
    `campaign ${spec.name}${shard ? ` shard ${shard.index}/${shard.count}` : ''}: ${cells.length} of ${plural(allCells.length, 'cell')}`,
  );
  const width = cells.reduce((w, c) => Math.max(w, c.id.length), 0); // no spread: a call takes ~100k arguments at most
  for (const c of cells) {
    // An exploring cell's time is its budget of tries, each of its run time.
    const time = c.explore
      ? `explore ${'runs' in c.explore.budget ? plural(c.explore.budget.runs, 'try', 'tries') : `${c.explore.budget.minutes} min`} of ${c.explore.runTimeS} s${c.explore.untilBroken ? ', until broken' : ''}`
      : `time-limit ${c.config.timeLimitS} s`;
    console.log(`${String(c.index + 1).padStart(4)}  ${c.id.padEnd(width)}  expect ${c.expect.padEnd(7)}  ${time}`);
  }
  for (const line of notChecked) console.log(`not checked: ${line}`);
  return 0;
}

/** The campaign run: planned (its module backends imported, every cell resolved), then its cells run. */
async function runFile(file: string, options: CampaignOptions, values: Values): Promise<number> {
  // A wrong --previous found before the campaign runs, not after it.
  if (values.previous !== undefined && !existsSync(values.previous as string)) {
    throw new UserError(
      `--previous: no such folder '${values.previous}' (give the previous night's campaign folder or the store)`,
    );
  }
  const plan = await loadCampaign(file, options);
  return whileInterruptible('campaign', async (signal) => {
    const result = await runCampaign(plan, options, campaignHooksOf(values, signal));
    const previous = values.previous === undefined ? undefined : previousOf(values.previous as string, result);
    // The page names what flipped since the night before, as the job summary does.
    if (previous)
      writeFileAtomic(result.files.summaryHtml, summaryHtml(result, { since: flipsSince(result, previous) }));
    if (values.json) printJson({ ...JSON.parse(summaryJson(result)), dir: result.dir, files: result.files });
    else console.log(terminalTable(result));
    // Report paths from the store's root: what a CI job uploads as its artifact.
    for (const f of writeJobSummary(result, values, {
      ...(previous ? { previous } : {}),
      artifactRoot: options.store ?? DEFAULTS.storeDir,
    }))
      console.error(`summary in Markdown: ${f}`);
    // Cut short by its own time budget is a campaign that did not meet its expectations (1), not a Ctrl-C.
    if (result.interrupted) return signal.aborted ? EXIT_INTERRUPTED : 1;
    return result.met ? 0 : 1;
  });
}
