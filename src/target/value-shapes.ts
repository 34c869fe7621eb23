/**
 * What an inventory value that reaches a command line may look like. Addresses go into
 * iptables rules run by a shell on the host (as root), hosts and users into ssh's argv,
 * paths into ssh's options (where ssh splits on spaces and expands `%` tokens), a container
 * name into the engine's verbs: each is held to the shape of what it names, so that a value
 * like `10.0.0.1;rm -rf /` or `-oProxyCommand=...` is refused when the file is read,
 * before it can be anything but data. (The commands under `commands:` are the operator's
 * own shell lines, by design; `path` is a list of folders.)
 */
import { isIPv4, isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';

export interface Shape {
  test: (s: string) => boolean;
  /** What a value must be, for the refusal: "a host name or an IP address". */
  what: string;
  /** The shape as a JSON Schema pattern, for editors (as strict as a regex allows; the parser decides). */
  pattern: string;
}

/** One DNS label (RFC 1123), with `_` inside as Compose's names have it. */
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/;

const isHostName = (s: string) =>
  s.length <= 253 &&
  s
    .replace(/\.$/, '')
    .split('.')
    .every((l) => LABEL.test(l));

/** A host name (DNS, or an ssh_config alias of that shape) or an IPv4/IPv6 literal. */
export const HOST_OR_IP: Shape = {
  test: (s) => isIPv4(s) || (isIPv6(s) && !s.includes('%')) || isHostName(s),
  what: 'a host name or an IP address',
  pattern: '^[A-Za-z0-9:][A-Za-z0-9_.:-]*$',
};

/** A shape that is a pattern (a JSON Schema one too). */
const matching = (pattern: string, what: string): Shape => {
  const re = new RegExp(pattern);
  return { test: (s) => re.test(s), pattern, what };
};

/** A login name as useradd takes it (never an option: no leading `-`). */
export const USER = matching(
  '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$',
  'a user name (letters, digits, _ . -, not starting with -)',
);

/** A container's name or id, as the engine names them. */
export const CONTAINER = matching(
  '^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$',
  'a container name or id (letters, digits, _ . -)',
);

/** A file ssh reads: ssh would split a value with spaces and expand `%` in it. */
export const SSH_PATH = matching(
  `^[^-\\s"'\\\\%][^\\s"'\\\\%]*$`,
  'a file path without spaces, quotes, backslashes or % (ssh splits and expands those)',
);

/** Folders for PATH, put before the host's own in a shell line. */
export const SEARCH_PATH = matching(
  '^[A-Za-z0-9_./+@-]+(:[A-Za-z0-9_./+@-]+)*$',
  "folders separated by ':' (letters, digits, / . _ - + @)",
);

/**
 * A path of the inventory's, as a reader of the file means it: `~/` in the home folder, a
 * relative one beside the inventory file (not in whatever folder lockchaos was started from).
 */
export function besideInventory(path: string, folder: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(folder, path);
}
