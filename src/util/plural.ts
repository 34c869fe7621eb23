/** A count and its noun, plural but for one: `plural(1, 'cell')` is "1 cell", `plural(3, 'cell')` "3 cells". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
