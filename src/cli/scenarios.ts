/** `lockchaos scenarios`: the preset failure stories, what they reproduce and what to expect. */
import { parseArgs } from 'node:util';
import { shellWord } from '../report/rerun-commands.js';
import { flagWords } from '../run-data/parameters.js';
import { SCENARIOS } from '../scenarios/index.js';
import { stamped } from '../version.js';
import { argsError } from './args.js';

const HELP = `Usage: lockchaos scenarios [--json]

  --json   print one JSON object: the lockchaos version and { scenarios: [...] }

Lists the scenario presets: each reproduces a published failure story with a backend,
workload, nemesis and timings, and says what it should end with, unfenced and fenced.
Run one with: lockchaos run --scenario NAME [--fencing on|off] [--seed N]`;

export async function scenariosCommand(argv: string[]): Promise<number> {
  let values: { json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    throw argsError(err, { json: true, help: true }, 'scenarios');
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const all = Object.values(SCENARIOS);
  if (values.json) {
    // Stamped, as every --json of lockchaos: an object that can grow fields, not a bare array.
    console.log(JSON.stringify(stamped({ scenarios: all }), null, 2));
    return 0;
  }
  for (const s of all) {
    const c = s.config;
    console.log(`${s.name}`);
    console.log(`  ${s.description}`);
    console.log(`  source:   ${s.source}`);
    const others = s.backends ? ` (or --backend ${s.backends.filter((b) => b !== c.backend).join(', ')})` : '';
    // Quoted for a shell: a client command is several words.
    console.log(`  runs:     ${flagWords(c).map(shellWord).join(' ')}${others}`);
    console.log(`  expected: unfenced ${s.expected.unfenced}, fenced ${s.expected.fenced}`);
    console.log('');
  }
  return 0;
}
