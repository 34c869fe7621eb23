/**
 * Terminal conventions: CI=true means no terminal tricks; colour only on a TTY, never under
 * NO_COLOR (https://no-color.org), TERM=dumb, --no-color (main.ts sets NO_COLOR) or CI, nor
 * into a pipe or file; FORCE_COLOR (not 0) turns it on anyway.
 */

/** CI is set to something that is not a "no" (CI=true, CI=1, CI=github). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/** Whether text written to `stream` may carry ANSI colours. */
export function colourFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  // A terminal that says it understands no escape sequences (Emacs shells, some CI logs).
  if (env.TERM === 'dumb') return false;
  if (isCi(env)) return false;
  return stream.isTTY === true;
}

export type Paint = 'red' | 'green' | 'yellow' | 'dim' | 'bold';
const CODES: Record<Paint, [number, number]> = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  dim: [2, 22],
  bold: [1, 22],
};

/** `text` in the paints given when `on`, else as it is. */
export function paint(on: boolean, text: string, ...paints: Paint[]): string {
  if (!on || paints.length === 0) return text;
  return paints.reduce((t, p) => `\x1b[${CODES[p][0]}m${t}\x1b[${CODES[p][1]}m`, text);
}
