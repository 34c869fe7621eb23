import { execFileSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { toJsonl } from '../../test/unit/history-writers.js';
import { expectOwnScriptsOnly } from '../../test/unit/page-policy.js';
import { runConfig, runFolder } from '../../test/unit/run-folder-fixture.js';
import type { TestConfig } from '../run-data/config.js';
import { UserError } from '../util/errors.js';
import { buildRunReport, colorsFor, writeRunReport } from './html.js';
import { escapeHtml, scriptJson } from './page-html.js';
import { rerunCommands, shellWord } from './rerun-commands.js';

const L = 'lockchaos:lock';
const S = 'lockchaos:set';
const violating = () =>
  new H()
    .acquire(0, undefined, L)
    .acquire(1, undefined, L)
    .invoke(0, 'write', S, ['</script><script>alert(1)</script>'])
    .ok(0, 'write', S, ['</script><script>alert(1)</script>'])
    .release(0, L)
    .release(1, L);

describe('report.html', () => {
  it('is one self-contained page: nothing loaded, everything inline, data that cannot close its script', async () => {
    const dir = runFolder(toJsonl(violating().ops));
    const path = await writeRunReport(dir);
    expect(path).toBe(join(dir, 'report.html'));
    const html = readFileSync(path, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expectOwnScriptsOnly(html);
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+rel="stylesheet"/);
    expect(html).not.toMatch(/(src|href)="https?:/);
    // uPlot, inlined.
    expect(html).toMatch(/https:\/\/github\.com\/leeoniya\/uPlot \(v1\.\d+\.\d+\)/);
    // The history's '</script>' stays inside the JSON.
    expect(html.match(/<\/script>/g)?.length).toBe(3);
    expect(html).toContain('\\u003c/script\\u003e');
    const data = JSON.parse(
      /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)?.[1] ?? '',
    );
    expect(data.violations[0].checker).toBe('mutual-exclusion');
    expect(data.colors).toHaveLength(data.fs.length);
    // A killed run (no results.json) says so; the verdict comes from the checkers run here.
    expect(html).toContain('id="cut-short"');
    expect(html).toContain('data-verdict="invalid"');
    // Paths from the page's own folder: the run's absolute folder is named once, as where it was written.
    expect(html).toContain('<pre id="rerun-replay">lockchaos run --replay test.json</pre>');
    expect(html).toContain('<pre id="rerun-report">lockchaos report .</pre>');
    expect(html.split(dir)).toHaveLength(2);
    expect(html).toContain(`written at <code>${dir}</code> on the machine that ran it`);
    expect(html).toContain(
      'lockchaos run --backend redlock --workload lock-set --nemesis client-pause --fencing off --time-limit 15',
    );
    expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
    // The perf checker's table: two acquires, both ok, no fault in the history.
    expect(html).toContain(
      '<tr data-perf="acquire:all"><td>acquire</td><td>all (no fault in effect)</td><td>2</td><td>100%</td><td>0</td><td>0</td><td>1</td>',
    );
    expect(html).not.toContain('data-perf="acquire:during"');
  });

  it('says the verdict first, and draws nothing of a valid fenced run as a violation', () => {
    const invalid = readFileSync(buildRunReport(runFolder(toJsonl(violating().ops))).reportPath, 'utf8');
    expect(invalid).toMatch(
      /<p id="headline" class="headline invalid">Process 1 acquired while process 0 still held the lock, with no fault in effect; [^<]+\.<\/p>/,
    );
    expect(invalid).toContain('<h2>What went wrong</h2>');
    expect(invalid).toContain('data-legend="counted"');

    // p0 holds token 1 and is paused; p1 acquires token 2 and writes; p0's stale write is turned away.
    const h = new H()
      .acquire(0, 1, L)
      .invoke('nemesis', 'start-client-pause')
      .ok('nemesis', 'start-client-pause', undefined, { client: 0, process: 0, ms: 1500 })
      .acquire(1, 2, L)
      .invoke(1, 'write', S, [[1], 2])
      .ok(1, 'write', S, [[1], 2])
      .invoke('nemesis', 'stop-client-pause')
      .ok('nemesis', 'stop-client-pause')
      .invoke(0, 'write', S, [[5], 1])
      .fail(0, 'write', S, [[5], 1], 'rejected: stale token')
      .release(1, L)
      .release(0, L)
      .invoke(2, 'acquire', L)
      .ok(2, 'acquire', L, { token: 3 })
      .invoke(2, 'write', S, [[1, 2], 3])
      .ok(2, 'write', S, [[1, 2], 3])
      .invoke(2, 'write', S, [[1, 2, 3], 3])
      .ok(2, 'write', S, [[1, 2, 3], 3])
      .release(2, L)
      .invoke(3, 'read', S)
      .ok(3, 'read', S, [1, 2, 3]);
    const { run, reportPath } = buildRunReport(runFolder(toJsonl(h.ops), undefined, { ...runConfig, fencing: true }));
    expect(run.valid).toBe(true);
    const html = readFileSync(reportPath, 'utf8');
    expect(html).toContain(
      `<p id="headline" class="headline valid">Process 0&#39;s stale write (token 1) was rejected by the store after it paused 6 ms (client-pause); no acknowledged add lost.</p>`,
    );
    // Not one thing drawn or written as a violation: no red legend, no INVALID, no "What went wrong".
    expect(html).not.toContain('What went wrong');
    expect(html).not.toContain('data-legend="counted"');
    expect(html).not.toContain('class="v-invalid"');
    expect(html).toContain('data-legend="not-counted"');
    expect(html).toContain('overlap, not counted: the store rejected the stale write');
    // It opens on the rejected write.
    expect(html).toContain('id="focus-box" data-style="kept-out"');
    expect(html).toContain('>Show the rejected write</button>');
    const data = JSON.parse(
      /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)?.[1] ?? '',
    );
    expect(data.violations[data.focus].kind).toBe('turned-away');
  });

  it('lists the code points the run recorded, escaped, with the fault aimed at each', () => {
    const dir = runFolder(toJsonl(new H().acquire(0, undefined, L).release(0, L).ops));
    writeFileSync(
      join(dir, 'results.json'),
      JSON.stringify({
        valid: true,
        results: [{ checker: 'mutual-exclusion', valid: true, counts: true, summary: '1 holds, none overlapping' }],
        coverage: [
          { point: 'wire:DEL', fault: 'wire:pause', reached: 12, hits: 3, followed: 2 },
          { point: '<b>x</b>', reached: 0, hits: 0, followed: 0 },
        ],
      }),
    );
    const html = readFileSync(buildRunReport(dir).reportPath, 'utf8');
    expect(html).toContain('<h2>Code points</h2>');
    expect(html).toContain('<td><code>wire:DEL</code></td><td>12</td><td>wire:pause</td><td>3</td><td>2 of 3</td>');
    expect(html).toContain('<code>&lt;b&gt;x&lt;/b&gt;</code></td><td>not exercised</td>');
  });

  it('reports a valid run with nothing to highlight', () => {
    const dir = runFolder(
      toJsonl(
        new H()
          .acquire(0, undefined, L)
          .invoke(0, 'write', S, [1])
          .ok(0, 'write', S, [1])
          .release(0, L)
          .invoke(1, 'read', S)
          .ok(1, 'read', S, [1]).ops,
      ),
    );
    writeFileSync(
      join(dir, 'results.json'),
      JSON.stringify({
        valid: true,
        results: [{ checker: 'mutual-exclusion', valid: true, counts: true, summary: '1 holds, none overlapping' }],
      }),
    );
    const { run, reportPath } = buildRunReport(dir);
    expect(run.valid).toBe(true);
    const html = readFileSync(reportPath, 'utf8');
    expect(html).toContain('No violation');
    expect(html).not.toContain('id="cut-short"');
    expect(html).toContain('"focus":-1');
    // Stored before the perf checker existed: no perf table.
    expect(html).not.toContain('id="perf"');
  });

  // A real full disk: a tmpfs of 1 MiB (mounting needs root; skipped otherwise).
  it.skipIf(process.getuid?.() !== 0)(
    'a full disk: one line naming it, and the report that was there is kept whole',
    () => {
      const disk = mkdtempSync(join(tmpdir(), 'lockchaos-full-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk]);
      try {
        const dir = join(disk, 'run');
        cpSync(runFolder(toJsonl(violating().ops)), dir, { recursive: true });
        const { reportPath } = buildRunReport(dir);
        const before = readFileSync(reportPath, 'utf8');
        // Fill the disk to its last byte.
        const filler = openSync(join(disk, 'filler'), 'w');
        try {
          for (;;) writeSync(filler, Buffer.alloc(4096));
        } catch (err) {
          expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
        } finally {
          closeSync(filler);
        }
        expect(() => buildRunReport(dir)).toThrow(
          new UserError(
            `cannot write ${reportPath}: the disk is full (ENOSPC): free space there (what was there is kept), then report again`,
          ),
        );
        expect(readFileSync(reportPath, 'utf8')).toBe(before);
        expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      } finally {
        execFileSync('umount', [disk]);
      }
    },
  );

  it('escapes text and gives each kind a colour', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(scriptJson({ s: '</script>&\u2028' })).toBe('{"s":"\\u003c/script\\u003e\\u0026\\u2028"}');
    const colors = colorsFor(['acquire', 'read', 'write', 'release', 'cas', 'get']);
    expect(new Set(colors).size).toBe(6);
  });
});

describe('re-run commands', () => {
  it('gives --replay of test.json and the equivalent flags', () => {
    expect(rerunCommands('.', runConfig).replay).toBe('lockchaos run --replay test.json');
    const r = rerunCommands('/runs/a b/2026', {
      ...runConfig,
      nodes: 5,
      name: 'mine',
      storeDir: '/tmp/s',
      loseData: true,
    });
    expect(r.replay).toBe("lockchaos run --replay '/runs/a b/2026/test.json'");
    expect(r.flags).toBe(
      'lockchaos run --backend redlock --workload lock-set --nemesis client-pause --lose-data --fencing off --time-limit 15 --concurrency 5 --ttl 1000 --hold 100 --rate 0 --acquire-timeout 5000 --request-timeout 1000 --nemesis-interval 2 --nodes 5 --seed 3 --name mine --store /tmp/s',
    );
    expect(r.unmapped).toEqual([]);
    expect(rerunCommands('/r', { ...runConfig, loseData: false }).flags).not.toContain('--lose-data');
    const future = { ...runConfig, scenario: 'x', partitionMode: 'ring' } as TestConfig;
    expect(rerunCommands('/r', future).unmapped).toEqual(['partitionMode']);
    expect(rerunCommands('/r', runConfig).flags).not.toMatch(/--name|--store|--nodes/);
  });

  it('quotes shell words only when needed', () => {
    expect(shellWord('store/x-1.json')).toBe('store/x-1.json');
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('')).toBe("''");
  });

  it('keeps the header with the verdict in view, and the checkers before the perf table', async () => {
    const html = readFileSync(await writeRunReport(runFolder(toJsonl(violating().ops))), 'utf8');
    expect(html).toMatch(/header \{[^}]*position:\s*sticky;\s*top:\s*0;/);
    expect(html.indexOf('<section id="checkers">')).toBeGreaterThan(0);
    expect(html.indexOf('<section id="checkers">')).toBeLessThan(html.indexOf('<table id="perf">'));
  });
});
