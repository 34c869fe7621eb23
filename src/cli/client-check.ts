/** `lockchaos client-check [--backend NAME] -- CMD ...`: does a client program speak the client protocol? */
import { parseArgs } from 'node:util';
import { PROTOCOL_VERSION } from '../backends/client-protocol.js';
import { BACKENDS } from '../backends/index.js';
import { checkClientProgram } from '../runner/client-check.js';
import { EXIT_ERROR, UserError } from '../util/errors.js';
import { argsError, knownBackend, positiveNumber } from './args.js';

const HELP = `Usage: lockchaos client-check [--backend NAME|PATH] [--dir DIR] -- CMD [ARG...]

Speaks the client protocol (version ${PROTOCOL_VERSION}, docs/client-protocol.md) to a client program
against a real server of the backend (default redis: the output says so), started in
containers and removed after: two instances of the program go through init, acquire, an
acquire while the other holds, a hold past the servers' session timeout (the TTL, 2 s,
plus 1 s), release, acquire, release, an abandoned grant and the acquire after it, end of
input. Each answer is held to the protocol.

Prints each step (a refused release with the program's reason); exit 0 when the program
conforms, else one line naming the problem (not JSON, an unknown answer type, a missing or
wrong id, a token that is not an integer from 0 to 2^53-1, a crash, no answer, never
granted the lock) and exit 3.

Options:
  --backend NAME|PATH  the servers it talks to (a built-in backend or a module's path)
  --dir DIR            the folder the command runs in (default: the current folder)
  --init-timeout S     how long each instance may take to answer init (default 15; a client
                       on a JVM may need more)
  -h, --help           this help

Example:
  lockchaos client-check -- python3 examples/clients/redis-py-lock/client.py`;

/** The servers a program is checked against when --backend does not say. */
const DEFAULT_BACKEND = 'redis';

export async function clientCheckCommand(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  let values: { backend?: string; dir?: string; 'init-timeout'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: own,
      options: {
        backend: { type: 'string' },
        dir: { type: 'string' },
        'init-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw argsError(err, { backend: true, dir: true, 'init-timeout': true, help: true }, 'client-check');
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (command.length === 0) {
    throw new UserError('give the client program after --: lockchaos client-check -- python3 client.py');
  }
  // Said first, on stdout: a program written for another server fails for that reason alone.
  const assumed = values.backend === undefined;
  if (assumed) console.log(`backend: ${DEFAULT_BACKEND} (assumed: no --backend given)`);
  const result = await checkClientProgram({
    backend: knownBackend('backend', values.backend ?? DEFAULT_BACKEND, Object.keys(BACKENDS)),
    assumed,
    command: command.map(shellWord).join(' '),
    cwd: values.dir,
    initTimeoutMs: initTimeoutMs(values['init-timeout']),
    log: (line) => console.error(line),
  });
  for (const step of result.steps) console.log(`  ${step}`);
  if (result.problem) {
    const what = result.neverGranted ? 'never granted the lock' : 'does not speak the protocol';
    console.log(`client-check: ${what}: ${result.problem}`);
    return EXIT_ERROR;
  }
  console.log(`client-check: speaks protocol ${result.protocol ?? PROTOCOL_VERSION}`);
  return 0;
}

/** --init-timeout in ms: seconds > 0, at most an hour (a timer's longest wait is about 24 days). */
function initTimeoutMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = positiveNumber('init-timeout', text, false);
  if (seconds > 3600) throw new UserError(`--init-timeout takes at most 3600 seconds, got '${text}'`);
  return seconds * 1000;
}

/** A word as the shell reads it back unchanged. */
const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);
