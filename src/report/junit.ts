/**
 * JUnit XML, the format CI systems read: one <testsuite> per run or campaign, one
 * <testcase> per checked thing. A failure's message is the violation in words.
 */

export interface JUnitCase {
  name: string;
  className: string;
  timeS: number;
  /** Absent: passed. */
  failure?: { message: string; body?: string };
  /** The case could not be carried out as asked (a harness failure, not a violation). */
  error?: { message: string; body?: string };
  /** A case that could not be decided (verdict unknown) or was not run. */
  skipped?: string;
  /** Extra text, e.g. the report's path. */
  systemOut?: string;
}

export interface JUnitSuite {
  name: string;
  timestamp?: string;
  /** <properties>: e.g. the seed and configuration, for CI views that show them. */
  properties?: Record<string, string>;
  cases: JUnitCase[];
}

/**
 * Text for element content. XML 1.0 forbids most control characters even as entities,
 * lone UTF-16 surrogates and U+FFFE/U+FFFF: they are dropped.
 */
export const escapeXmlText = (s: string) =>
  s
    // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these characters and lone surrogates
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** Text for an attribute value: as content, and line breaks and tabs kept as references (a parser turns raw ones into spaces). */
const escapeAttr = (s: string) =>
  escapeXmlText(s).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

export function junitXml(suites: JUnitSuite[]): string {
  const count = (f: (c: JUnitCase) => boolean) => suites.reduce((n, s) => n + s.cases.filter(f).length, 0);
  const total = count(() => true);
  const failures = count((c) => c.failure !== undefined);
  const errors = count((c) => c.error !== undefined && c.failure === undefined);
  const skipped = count((c) => c.skipped !== undefined && c.failure === undefined && c.error === undefined);
  const time = suites.reduce((t, s) => t + s.cases.reduce((u, c) => u + c.timeS, 0), 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="lockchaos" tests="${total}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time.toFixed(3)}">`,
  ];
  for (const s of suites) {
    const f = s.cases.filter((c) => c.failure).length;
    const e = s.cases.filter((c) => c.error && !c.failure).length;
    const k = s.cases.filter((c) => c.skipped !== undefined && !c.failure && !c.error).length;
    const t = s.cases.reduce((u, c) => u + c.timeS, 0);
    lines.push(
      `  <testsuite name="${escapeAttr(s.name)}" tests="${s.cases.length}" failures="${f}" errors="${e}" skipped="${k}" time="${t.toFixed(3)}"${s.timestamp ? ` timestamp="${escapeAttr(s.timestamp)}"` : ''}>`,
    );
    const props = Object.entries(s.properties ?? {});
    if (props.length) {
      lines.push('    <properties>');
      for (const [name, value] of props)
        lines.push(`      <property name="${escapeAttr(name)}" value="${escapeAttr(value)}"/>`);
      lines.push('    </properties>');
    }
    for (const c of s.cases) {
      const open = `    <testcase name="${escapeAttr(c.name)}" classname="${escapeAttr(c.className)}" time="${c.timeS.toFixed(3)}"`;
      const inner: string[] = [];
      if (c.failure) {
        inner.push(
          `      <failure message="${escapeAttr(c.failure.message)}" type="violation">${escapeXmlText(c.failure.body ?? c.failure.message)}</failure>`,
        );
      } else if (c.error) {
        inner.push(
          `      <error message="${escapeAttr(c.error.message)}" type="harness">${escapeXmlText(c.error.body ?? c.error.message)}</error>`,
        );
      } else if (c.skipped !== undefined) {
        inner.push(`      <skipped message="${escapeAttr(c.skipped)}"/>`);
      }
      if (c.systemOut) inner.push(`      <system-out>${escapeXmlText(c.systemOut)}</system-out>`);
      lines.push(inner.length ? `${open}>\n${inner.join('\n')}\n    </testcase>` : `${open}/>`);
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
