#!/usr/bin/env node
/**
 * The lockchaos command line: a thin layer over the library. Each subcommand lives in its
 * own file and exports `(argv) => Promise<exit code>`.
 */
import { nearestOr } from '../util/did-you-mean.js';
import { EXIT_ERROR, UserError } from '../util/errors.js';
import { reportBugLine } from './internal-error.js';
import { rerunWithNodeFlags } from './rerun-with-node-flags.js';

type Command = {
  summary: string;
  load: () => Promise<(argv: string[]) => Promise<number>>;
  /** V8 flags the command wants for these arguments: it is run again in a node started with them. */
  nodeFlags?: (argv: string[]) => Promise<readonly string[]>;
};

const commands: Record<string, Command> = {
  run: {
    summary: 'start a cluster, run clients under faults, check the history',
    load: async () => (await import('./run.js')).runCommand,
  },
  check: {
    summary: 'check stored histories (ours or Jepsen EDN) for linearizability, offline',
    load: async () => (await import('./check.js')).checkCommand,
    nodeFlags: async (argv) => (await import('./check.js')).checkNodeFlags(argv),
  },
  scenarios: {
    summary: 'list the preset failure stories and their expected outcomes',
    load: async () => (await import('./scenarios.js')).scenariosCommand,
  },
  report: {
    summary: 'rebuild report.html and junit.xml of a stored run and print its summary',
    load: async () => (await import('./report.js')).reportCommand,
  },
  cleanup: {
    summary: 'remove every container and network that lockchaos runs left behind',
    load: async () => (await import('./cleanup.js')).cleanupCommand,
  },
  explore: {
    summary: 'find where a lock library breaks: learn the points its clients reach, try each fault there',
    load: async () => (await import('./explore.js')).exploreCommand,
  },
  shrink: {
    summary: 'from an invalid run, the smallest fault schedule that still breaks the lock',
    load: async () => (await import('./shrink.js')).shrinkCommand,
  },
  campaign: {
    summary: 'run a YAML matrix of tests with expected verdicts (nightly CI), sharded, in parallel; merge shards',
    load: async () => (await import('./campaign.js')).campaignCommand,
  },
  sweep: {
    summary: 'how likely is a violation: a grid of client pause lengths x TTL, observed against the formula',
    load: async () => (await import('./sweep.js')).sweepCommand,
  },
  bench: {
    summary: 'what a lock costs: acquire latency tails, handoffs/s, fairness and availability per backend',
    load: async () => (await import('./bench.js')).benchCommand,
  },
  'client-check': {
    summary: 'does a client program (your lock library in any language) speak the client protocol?',
    load: async () => (await import('./client-check.js')).clientCheckCommand,
  },
  serve: {
    summary: 'a local web page over a store: campaigns by night, each configuration over the nights, every run',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  doctor: {
    summary: 'check this machine: Docker engine, node image, iptables in a container, SIGSTOP',
    load: async () => (await import('./doctor.js')).doctorCommand,
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'lockchaos: Jepsen-style fault injection for distributed lock services',
    '',
    'Usage: lockchaos <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'lockchaos help <command>' (or 'lockchaos <command> --help') for a command's options;",
    "'lockchaos --version' (-v) prints the version. --no-color (any command), NO_COLOR or TERM=dumb:",
    'no colour.',
    'Exit codes: 0 valid, 1 invalid, 2 unknown, 3 error, 130 interrupted.',
  ].join('\n');
}

/** An unknown command in one line, with the nearest one when a typo is likely. */
function unknownCommand(name: string): number {
  const names = Object.keys(commands);
  console.error(`lockchaos: unknown command '${name}'${nearestOr(name, names, `choose one of ${names.join(', ')}`)}`);
  return EXIT_ERROR;
}

export async function main(given: string[]): Promise<number> {
  // --no-color, anywhere: every command's output without colour, as NO_COLOR says (terminal.ts).
  const argv = given.filter((a) => a !== '--no-color');
  if (argv.length !== given.length) {
    // The flag is the nearest word: it beats a FORCE_COLOR from the environment.
    process.env.NO_COLOR = '1';
    delete process.env.FORCE_COLOR;
  }
  let [name, ...rest] = argv;
  // `lockchaos help run` is `lockchaos run --help`.
  if (name === 'help' && rest[0] !== undefined) {
    if (!commands[rest[0]]) return unknownCommand(rest[0]);
    [name, rest] = [rest[0], ['--help']];
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? EXIT_ERROR : 0;
  }
  if (name === '--version' || name === '-V' || name === '-v' || name === 'version') {
    const { version } = await import('../version.js');
    console.log(version);
    return 0;
  }
  const command = commands[name];
  if (!command) return unknownCommand(name);
  try {
    const rerun = await rerunWithNodeFlags((await command.nodeFlags?.(rest)) ?? []);
    if (rerun !== undefined) return rerun;
    return await (await command.load())(rest);
  } catch (err) {
    if (err instanceof UserError) {
      console.error(`lockchaos ${name}: ${err.message}`);
      return EXIT_ERROR;
    }
    console.error(`lockchaos ${name}: internal error:`, err);
    console.error(reportBugLine());
    return EXIT_ERROR;
  }
}

// Whatever escapes (a bug) ends with the error code and one line, never exit 1 (INVALID)
// with a stack; containers a run left are removed by the next run's sweep.
const crash = (err: unknown) => {
  console.error(`lockchaos: internal error: ${err instanceof Error ? err.message : String(err)}`);
  console.error(reportBugLine());
  process.exit(EXIT_ERROR);
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error('lockchaos: internal error:', err);
    console.error(reportBugLine());
    process.exitCode = EXIT_ERROR;
  },
);
