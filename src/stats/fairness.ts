/**
 * Jain's fairness index of the shares clients got (grants per client):
 * J = (Σx)² / (n·Σx²). 1 when every client got the same, 1/n when one got everything.
 */
export function jainIndex(shares: readonly number[]): number | null {
  if (shares.some((x) => !(x >= 0) || !Number.isFinite(x))) {
    throw new RangeError('Jain index: shares must be finite numbers >= 0');
  }
  let sum = 0;
  let squares = 0;
  for (const x of shares) {
    sum += x;
    squares += x * x;
  }
  // No client got anything (or there are none): fairness is undefined, not perfect.
  if (shares.length === 0 || squares === 0) return null;
  return (sum * sum) / (shares.length * squares);
}
