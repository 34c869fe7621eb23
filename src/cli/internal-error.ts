/**
 * What follows an internal error (an error that is no UserError: a bug in lockchaos, not
 * bad input): that it is one, and where to report it, package.json's `bugs` URL, so that a
 * user of the npm package need not look for the project.
 */
import { bugsUrl, version } from '../version.js';

export function reportBugLine(): string {
  const where = bugsUrl === undefined ? '' : ` at ${bugsUrl}`;
  return `this is a bug in lockchaos ${version}: please report it${where}, with the command and the lines above`;
}
