/**
 * A campaign's summary.html script: click a column's head of a table.sortable to sort
 * its rows by that column (again: the other way), numbers as numbers, a cell's data-key
 * before its text. Bundled, inlined, then called (page-assets.ts, pageScript): it
 * reaches the page's DOM only.
 */
export function sortableTables(): void {
  document.querySelectorAll<HTMLTableCellElement>('table.sortable th').forEach((th, col) => {
    th.addEventListener('click', () => {
      const body = th.closest('table')!.tBodies[0];
      const down = th.dataset.dir !== 'asc';
      th.parentNode!.querySelectorAll<HTMLElement>('th').forEach((h) => {
        delete h.dataset.dir;
      });
      th.dataset.dir = down ? 'asc' : 'desc';
      const key = (tr: HTMLTableRowElement) => tr.cells[col].dataset.key ?? tr.cells[col].textContent ?? '';
      const rows = [...body.rows].sort((a, b) => {
        const x = key(a);
        const y = key(b);
        const nx = Number(x);
        const ny = Number(y);
        const c = x !== '' && y !== '' && !Number.isNaN(nx) && !Number.isNaN(ny) ? nx - ny : x.localeCompare(y);
        return down ? c : -c;
      });
      body.append(...rows);
    });
  });
}
