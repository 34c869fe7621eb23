/** A plain-text table for the terminal: columns padded to their widest cell, two spaces apart. */
export function textTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => rows.reduce((w, row) => Math.max(w, (row[i] ?? '').length), h.length));
  const line = (cells: readonly string[]) =>
    cells
      .map((x, i) => x.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}
