/** The pages a reader is given, README first, then docs/ (paths relative to the package), and their fenced blocks. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/paths.js';

export const docPages = (): string[] => [
  'README.md',
  ...readdirSync(join(packageRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

export interface Block {
  page: string;
  /** Line of the opening fence, 1-based. */
  line: number;
  lang: string;
  text: string;
}

/** Every fenced block of a page, with its language ('' when the fence names none). */
export function blocksOf(page: string): Block[] {
  const text = readFileSync(join(packageRoot, page), 'utf8');
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    page,
    line: text.slice(0, m.index).split('\n').length,
    lang: m[1] as string,
    text: m[2] as string,
  }));
}
