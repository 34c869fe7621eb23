/**
 * `lockchaos report RUN_DIR`: rebuild report.html and junit.xml of a stored run and print
 * its summary. Works on a run whose runner was killed (test.json and a history prefix):
 * the checkers then run on what was recorded. Exit code by verdict (0 valid, 1 invalid,
 * 2 unknown), 3 for bad input, with one line that names it.
 */
import { parseArgs } from 'node:util';
import { verdictName } from '../../checkers/result.js';
import { interruptibleReport } from '../report/report-on-thread.js';
import { formatSummary } from '../report/summary.js';
import { runExitCode } from '../run-data/conditions.js';
import { UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import { colourFor } from '../util/terminal.js';
import { argsError } from './args.js';
import { printJson } from './campaign-flags.js';
import { resolvedRunDir } from './run-dir.js';

const HELP = `Usage: lockchaos report RUN_DIR [--json]

Rebuilds report.html (timeline, latency plot, the violation highlighted) and junit.xml in
a stored run folder (store/<test>/<timestamp>/, or store/latest), replacing the two files
that are there, and prints the run's summary. A link (store/latest) is followed first: the
files name the run itself, not the link, which names another run after the next one. A
run whose runner was killed has no results.json: the checkers then run on the operations
recorded (a last line cut mid-write is left out), and the report says so.

Options:
  --json       print the result as one JSON object on stdout (verdict, exit code, headline,
               the folder and the files written), not the summary
  -h, --help   this help

Example:
  lockchaos report store/latest

Exit codes: 0 valid, 1 invalid, 2 unknown, 3 error (no such folder, not a run folder,
an unreadable history, or a run that did not run as configured), 130 a run that was
interrupted.`;

export async function reportCommand(argv: string[]): Promise<number> {
  let parsed: { values: { help?: boolean; json?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw argsError(err, { help: true, json: true }, 'report');
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
  const given = parsed.positionals[0] as string;
  const { dir, renamed } = resolvedRunDir(given);
  // It replaces files: say which, and where, before they are (a folder that is no run, or
  // whose history cannot be read, gets its one line of error instead). Built on a thread
  // whose heap is bounded by the history's size (report-heap.ts).
  const built = await interruptibleReport(dir, undefined, {
    writing: () =>
      console.error(`rebuilding report.html and junit.xml in ${dir}${renamed ? ` (${given} leads there)` : ''}`),
    unbounded: (mib) =>
      console.error(`note: the report needed more than its bound of ${mib} MiB of heap: building it again without one`),
  });
  // Without a signal the thread always answers.
  const { run, reportPath, junitPath, headline } = built as NonNullable<typeof built>;
  if (run.cutShort) console.error(`note: incomplete run: ${run.cutShort}`);
  const exitCode = runExitCode(run.valid, run.conditions);
  if (parsed.values.json) {
    printJson({
      verdict: verdictName(run.valid),
      exitCode,
      headline,
      dir,
      files: { report: reportPath, junit: junitPath },
      ...(run.cutShort ? { cutShort: run.cutShort } : {}),
      conditions: run.conditions,
    });
    return exitCode;
  }
  console.log(formatSummary({ ...run, dir, headline }, { colour: colourFor(process.stdout) }));
  console.log(`report: ${reportPath}`);
  console.log(`junit: ${junitPath}`);
  return exitCode;
}
