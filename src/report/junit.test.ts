import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../checkers/result.js';
import type { TestConfig } from '../run-data/config.js';
import type { LoadedRun } from '../run-data/run-folder.js';
import { escapeXmlText, junitXml } from './junit.js';
import { runSuite } from './run-junit.js';

const xmllint = spawnSync('xmllint', ['--version']).status === 0;

/** Well-formed by xmllint when it is installed (apt-get install libxml2-utils), else skipped. */
function wellFormed(xml: string): void {
  if (!xmllint) return;
  const file = join(mkdtempSync(join(tmpdir(), 'lockchaos-junit-')), 'junit.xml');
  writeFileSync(file, xml);
  const r = spawnSync('xmllint', ['--noout', file], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
}

/** The attribute's value as an XML parser reads it (only the references we write). */
const unescapeAttr = (s: string) =>
  s
    .replace(/&#10;/g, '\n')
    .replace(/&#13;/g, '\r')
    .replace(/&#9;/g, '\t')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

const nasty = `a "quoted" <tag> & 'apos'\n\ttab\u0000nul\u0007bell\u001bescape \ud800lone \udc00low 😀 ok \ufffe end ]]>`;

describe('JUnit XML', () => {
  it('escapes markup, drops what XML 1.0 forbids, keeps line breaks in attributes', () => {
    const xml = junitXml([
      {
        name: nasty,
        timestamp: '2026-11-29T08:53:02.652',
        properties: { seed: '3', [nasty]: nasty },
        cases: [
          { name: nasty, className: nasty, timeS: 1.5, failure: { message: nasty, body: nasty }, systemOut: nasty },
          { name: 'undecided', className: 'c', timeS: 0, skipped: nasty },
          { name: 'passed', className: 'c', timeS: 0 },
        ],
      },
    ]);
    wellFormed(xml);
    for (const bad of ['\u0000', '\u0007', '\u001b', '\ufffe', '\ud800', '\udc00']) expect(xml).not.toContain(bad);
    expect(xml).toContain('😀');
    const message = /<failure message="([^"]*)"/.exec(xml)?.[1] ?? '';
    expect(unescapeAttr(message)).toBe(`a "quoted" <tag> & 'apos'\n\ttabnulbellescape lone low 😀 ok  end ]]>`);
    expect(xml).toContain('tests="3" failures="1" errors="0" skipped="1" time="1.500"');
    expect(xml).toMatch(/<property name="seed" value="3"\/>/);
  });

  it('escapes element text without touching line breaks', () => {
    expect(escapeXmlText('<a>\n&\u0001')).toBe('&lt;a&gt;\n&amp;');
  });
});

const config = {
  name: 'redis-lock-set-client-pause-fenced',
  backend: 'redis',
  workload: 'lock-set',
  nemesis: 'client-pause',
  fencing: true,
  timeLimitS: 15,
  seed: 3,
} as TestConfig;

function run(results: CheckResult[], extra: Partial<LoadedRun> = {}): LoadedRun {
  return {
    dir: '/tmp/store/x/2026-11-29T08-53-02.652Z',
    config,
    recorded: { storeKey: 'lockchaos:set' },
    history: [],
    results,
    valid: false,
    checkedHere: false,
    conditions: [],
    ...extra,
  };
}

describe('junit.xml of a run', () => {
  const report = '/tmp/store/x/2026-11-29T08-53-02.652Z/report.html';

  it('fails a counted violation with its words and the report, never an uncounted one', () => {
    const suite = runSuite(
      run([
        {
          checker: 'mutual-exclusion',
          valid: false,
          counts: false,
          summary: '3 overlapping holds',
          details: { first: 'process 0 held' },
        },
        {
          checker: 'lost-updates',
          valid: false,
          counts: true,
          summary: '1 of 9 acknowledged adds lost; first: element 4 <lost>',
          details: { first: 'element 4 <lost>' },
        },
        { checker: 'fencing', valid: 'unknown', counts: true, summary: 'no grants' },
      ]),
      report,
    );
    expect(suite.name).toBe(config.name);
    expect(suite.timestamp).toBe('2026-11-29T08:53:02.652');
    const [me, lu, fe] = suite.cases;
    expect(me?.className).toBe(config.name);
    expect(me?.failure).toBeUndefined();
    expect(me?.systemOut).toMatch(
      /^not counted toward the verdict \(shown for information\)\nINVALID: 3 overlapping holds/,
    );
    expect(lu?.failure?.message).toBe(`element 4 <lost> (report: ${report})`);
    expect(fe?.skipped).toBe('unknown: no grants');
    const xml = junitXml([suite]);
    wellFormed(xml);
    expect(xml).toContain('failures="1"');
    expect(xml).toContain('element 4 &lt;lost&gt;');
  });

  it('joins a list of first violations, and notes a run cut short on every case', () => {
    const suite = runSuite(
      run(
        [
          {
            checker: 'fencing',
            valid: false,
            counts: true,
            summary: '1 stale tokens accepted',
            details: { first: ['stale one', 'regression two'] },
          },
        ],
        { cutShort: 'the run has no results.json' },
      ),
      report,
    );
    expect(suite.cases[0]?.failure?.message).toBe(`stale one; regression two (report: ${report})`);
    expect(suite.cases[0]?.systemOut).toContain('run incomplete: the run has no results.json');
    expect(suite.properties?.incomplete).toBe('the run has no results.json');
    wellFormed(junitXml([suite]));
  });

  it('gives each checker its real time, not 0.000', () => {
    const suite = runSuite(
      run([{ checker: 'lost-updates', valid: true, counts: true, summary: 'fine', timeMs: 1500.25 }], { valid: true }),
      report,
    );
    expect(suite.cases[0]?.timeS).toBeCloseTo(1.50025);
    expect(junitXml([suite])).toContain(
      '<testcase name="lost-updates" classname="redis-lock-set-client-pause-fenced" time="1.500"',
    );
  });

  it('puts a run that did not run as configured in error, beside the verdict', () => {
    const suite = runSuite(
      run([{ checker: 'lost-updates', valid: true, counts: true, summary: 'fine' }], {
        valid: 'unknown',
        conditions: [{ kind: 'worker-lost', message: 'client worker 2 killed by SIGKILL at 4.1 s' }],
      }),
      report,
    );
    const [first] = suite.cases;
    expect(first?.name).toBe('run as configured');
    expect(first?.error?.message).toBe(
      `the run did not run as configured: client worker 2 killed by SIGKILL at 4.1 s; verdict unknown (report: ${report})`,
    );
    expect(suite.properties?.['not-as-configured']).toBe('client worker 2 killed by SIGKILL at 4.1 s');
    const xml = junitXml([suite]);
    wellFormed(xml);
    expect(xml).toMatch(/<testsuites [^>]*errors="1"/);
    expect(xml).toContain('<error message="the run did not run as configured');
  });
});
