/**
 * "did you mean": the known word nearest a mistyped one, when it is near enough to be the
 * one meant (a typo, not another word): at most 1 edit for words up to 4 letters, 2 up to
 * 8, 3 beyond; or the only known word the given one begins. Ties: the first in `known`.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions, swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

export function didYouMean(word: string, known: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const limit = w.length <= 4 ? 1 : w.length <= 8 ? 2 : 3;
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(w, k.toLowerCase());
    if (d <= limit && (best === undefined || d < best.d)) best = { k, d };
  }
  if (best) return best.k;
  const prefixed = w.length >= 3 ? known.filter((k) => k.toLowerCase().startsWith(w)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/**
 * The end of an "unknown X" message: ": did you mean K? Choose one of ..." when a known
 * word is near, else ": choose one of ..." (`rest` as given, lowercase first).
 */
export function nearestOr(word: string, known: readonly string[], rest: string, show = (k: string) => k): string {
  const k = didYouMean(word, known);
  return k === undefined ? `: ${rest}` : `: did you mean ${show(k)}? ${rest.charAt(0).toUpperCase()}${rest.slice(1)}`;
}

/** ": did you mean X?" for a message, or '' when nothing is near. */
export function suggestion(word: string, known: readonly string[], show = (k: string) => k): string {
  const k = didYouMean(word, known);
  return k === undefined ? '' : `: did you mean ${show(k)}?`;
}
