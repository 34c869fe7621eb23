/**
 * `lockchaos report RUN_DIR`: rebuild report.html and junit.xml of a stored run and print
 * its summary. Works on a run whose runner was killed (test.json and a history prefix):
 * the checkers then run on what was recorded. Exit code by verdict (0 valid, 1 invalid,
 * 2 unknown), 3 for bad input, with one line that names it.
 */
import { parseArgs } from 'node:util';
import { buildRunReport } from '../report/html.js';
import { formatSummary } from '../report/summary.js';
import { runExitCode } from '../runner/conditions.js';
import { UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import { colourFor } from '../util/terminal.js';
import { argsError } from './args.js';

const HELP = `Usage: lockchaos report RUN_DIR

Rebuilds report.html (timeline, latency plot, the violation highlighted) and junit.xml in
a stored run folder (store/<test>/<timestamp>/, or store/latest), and prints the run's
summary. A run whose runner was killed has no results.json: the checkers then run on the
operations recorded (a last line cut mid-write is left out), and the report says so.

Exit codes: 0 valid, 1 invalid, 2 unknown, 3 error (no such folder, not a run folder,
an unreadable history, or a run that did not run as configured), 130 a run that was
interrupted.`;

export async function reportCommand(argv: string[]): Promise<number> {
  let parsed: { values: { help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw argsError(err, { help: true }, 'report');
  }
  if (parsed.values.help) {
    console.log(HELP);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    throw new UserError(
      parsed.positionals.length === 0
        ? `give the run folder to report on, e.g. ${cliCommand} report store/latest`
        : `give one run folder, got ${parsed.positionals.length}`,
    );
  }
  const dir = parsed.positionals[0] as string;
  const { run, reportPath, junitPath, headline } = buildRunReport(dir);
  if (run.cutShort) console.error(`note: incomplete run: ${run.cutShort}`);
  console.log(formatSummary({ ...run, dir, headline }, { colour: colourFor(process.stdout) }));
  console.log(`report: ${reportPath}`);
  console.log(`junit: ${junitPath}`);
  return runExitCode(run.valid, run.conditions);
}
