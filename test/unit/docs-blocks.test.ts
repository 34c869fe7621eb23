/**
 * Every fenced block of the README and docs/ is checked, so that a page cannot drift from
 * the tool: each block names its language, and
 *
 *   sh, console  every `lockchaos` / `npx lockchaos` command line (a console's `$ ` lines)
 *                is parsed by the built CLI: its flags must be ones the command takes
 *                (--help is added, so nothing runs); other tools' lines are left alone
 *   yaml         a campaign file: validated as `lockchaos campaign --dry-run` would
 *   python       compiled (a syntax check; its libraries need not be installed)
 *   ts           compiled and run against real containers (test/integration/readme.test.ts)
 *   text         output, transcripts and layouts: protocol lines (→ / ← {json}) must be JSON,
 *                and a layout's leading paths must exist
 *
 * Every relative link of those pages leads to a file of the package. The CLI is the
 * built one (dist/, as npm test builds it first).
 */
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readCampaignPlan } from '../../src/campaign/load.js';
import { parseInventory } from '../../src/target/inventory.js';
import { packageRoot } from '../../src/util/paths.js';
import { type Block, blocksOf, docPages } from './doc-pages.js';

const CLI = join(packageRoot, 'dist/src/cli/main.js');

/** What a YAML block is: a target inventory (top-level nodes:), a Kubernetes manifest, or a campaign. */
const kindOfYaml = (b: Block) =>
  /^nodes:/m.test(b.text) ? 'inventory' : /^apiVersion:/m.test(b.text) ? 'kubernetes' : 'campaign';
const blocks = docPages().flatMap(blocksOf);
const where = (b: Block) => `${b.page}:${b.line}`;
const LANGS = ['sh', 'console', 'yaml', 'python', 'ts', 'text'];

/** A shell line's words: quotes kept together, a comment (` # ...`) dropped; no expansion. */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else word = (word ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else if (c === '#' && word === undefined) break;
    else if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** The lockchaos command lines of a sh or console block, as argument lists after `lockchaos`. */
function commandLines(b: Block): string[][] {
  const joined = b.text.replace(/\\\n\s*/g, ' ').split('\n');
  const lines = b.lang === 'console' ? joined.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2)) : joined;
  return lines
    .map(words)
    .map((w) => (w[0] === 'npx' ? w.slice(1) : w))
    .filter((w) => w[0] === 'lockchaos' && w.length > 1)
    .map((w) => w.slice(1));
}

describe('the code blocks of the README and docs/', () => {
  it('each names its language, one of those checked here', () => {
    expect(blocks.length).toBeGreaterThan(25);
    expect(blocks.filter((b) => !LANGS.includes(b.lang)).map(where)).toEqual([]);
  });

  it('every lockchaos command line parses: each flag is one its command takes', async () => {
    const lines = blocks
      .filter((b) => b.lang === 'sh' || b.lang === 'console')
      .flatMap((b) => commandLines(b).map((args) => ({ at: where(b), args })));
    expect(lines.length).toBeGreaterThan(30);
    const parses = async ({ at, args }: (typeof lines)[number]): Promise<string | undefined> => {
      // --help after the command (and merge's own word): parsed in full, then only the help printed.
      const cut = args[0] === 'campaign' && args[1] === 'merge' ? 2 : 1;
      const withHelp = [...args.slice(0, cut), '--help', ...args.slice(cut)];
      const r = await promisify(execFile)(process.execPath, [CLI, ...withHelp], {
        env: { ...process.env, NO_COLOR: '1' },
      }).then(
        ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
        // code: the exit status, or the spawn's own error ('ENOENT'), shown as it is.
        (err: { code?: number | string; stdout: string; stderr: string }) => ({ ...err, status: err.code ?? -1 }),
      );
      if (r.status === 0 && /^Usage: lockchaos /.test(r.stdout)) return undefined;
      return `${at}: lockchaos ${args.join(' ')}: ${r.status} ${r.stderr.trim()}`;
    };
    // Two at a time: each is a process that mostly loads modules, and the machine has two cores.
    const failed: string[] = [];
    const queue = [...lines];
    await Promise.all(
      [0, 1].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const failure = await parses(next);
          if (failure) failed.push(failure);
        }
      }),
    );
    expect(failed).toEqual([]);
  });

  it('every YAML block is a valid campaign file, as --dry-run reads one', () => {
    const yaml = blocks.filter((b) => b.lang === 'yaml' && kindOfYaml(b) === 'campaign');
    expect(yaml.length).toBeGreaterThanOrEqual(4);
    for (const b of yaml) {
      // In a folder of its own, with the backend modules it names (a copy of the own-image example's).
      const dir = join(mkdtempSync(join(tmpdir(), 'lockchaos-docs-yaml-')), 'ci');
      mkdirSync(dir);
      for (const m of b.text.matchAll(/backend: (\.\.?\/\S+\.mjs)/g)) {
        const module = join(dir, m[1] as string);
        mkdirSync(dirname(module), { recursive: true });
        cpSync(join(packageRoot, 'examples/backends/own-image/backend.mjs'), module);
      }
      const file = join(dir, 'nightly.yaml');
      writeFileSync(file, b.text);
      expect(() => readCampaignPlan(file), where(b)).not.toThrow();
      expect(readCampaignPlan(file).cells.length, where(b)).toBeGreaterThan(0);
    }
  });

  it('every target inventory parses as --target reads one; a Kubernetes manifest is YAML', () => {
    const inventories = blocks.filter((b) => b.lang === 'yaml' && kindOfYaml(b) === 'inventory');
    expect(inventories.length).toBeGreaterThanOrEqual(3);
    for (const b of inventories) {
      expect(parseInventory(parseYaml(b.text), where(b), { backend: 'etcd', port: 2379 }).nodes.length).toBeGreaterThan(
        0,
      );
    }
    for (const b of blocks.filter((x) => x.lang === 'yaml' && kindOfYaml(x) === 'kubernetes')) {
      expect(parseYaml(b.text), where(b)).toHaveProperty('kind');
    }
  });

  it('every Python block compiles', () => {
    const python = blocks.filter((b) => b.lang === 'python');
    expect(python.length).toBeGreaterThan(0);
    for (const b of python) {
      const r = spawnSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], {
        input: b.text,
        encoding: 'utf8',
      });
      expect(r.status, `${where(b)}: ${r.stderr}`).toBe(0);
    }
  });

  it('the TypeScript blocks are the two the integration test runs', () => {
    expect(blocks.filter((b) => b.lang === 'ts').map((b) => b.page)).toEqual(['docs/running.md', 'docs/running.md']);
  });

  it('in text blocks, protocol lines are JSON and a layout names paths that exist', () => {
    for (const b of blocks.filter((x) => x.lang === 'text')) {
      for (const line of b.text.split('\n')) {
        const message = /^[→←] (\{.*\})$/.exec(line);
        if (message) expect(() => JSON.parse(message[1] as string), `${where(b)}: ${line}`).not.toThrow();
        const path = /^((?:src|test|perf|checkers|workloads|docker|scripts|examples)\/[\w./-]*)\s/.exec(line);
        if (path) expect(existsSync(join(packageRoot, path[1] as string)), `${where(b)}: ${path[1]}`).toBe(true);
      }
    }
  });
});

describe('the links of the README and docs/', () => {
  it('every relative link leads to a file or folder of the package', () => {
    const broken: string[] = [];
    for (const page of docPages()) {
      const text = readFileSync(join(packageRoot, page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(packageRoot, dirname(page), target))) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
