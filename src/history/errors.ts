import { UserError } from '../util/errors.js';

/**
 * A history that cannot be read or makes no sense as a Jepsen history (a truncated line, an
 * `ok` with no invocation, a process that issues again after `info`). It is a UserError, so
 * the CLI prints its one-line message and exits 3. Messages name where: a line number for
 * readers, an op index for history rules.
 */
export class HistoryError extends UserError {
  override name = 'HistoryError';
}
