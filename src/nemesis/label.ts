/**
 * A recorded fault in words, from its kind's module (FaultKindModule.words): the report's
 * label (kind · whom · how · length) and the progress line's (kind and whom). A kind no
 * module has (an older record's) is named with its length only.
 */
import type { FaultWords } from './kind.js';
import { faultKindModule } from './spec.js';

function wordsOf(kind: string, value: unknown): { v: Record<string, unknown>; words: FaultWords } {
  const v = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return { v, words: faultKindModule(kind)?.words(v) ?? {} };
}

/** The report's label: its kind, whom it hit, how, and how long. */
export function faultLabel(kind: string, value: unknown): string {
  const { v, words } = wordsOf(kind, value);
  const parts = [kind];
  if (words.whom !== undefined) parts.push(words.whom);
  parts.push(...(words.how ?? []));
  if (typeof v.ms === 'number') parts.push(`${v.ms} ms`);
  return parts.join(' · ');
}

/** The progress line's label: its kind and whom it hit. */
export function shortFaultLabel(kind: string, value: unknown): string {
  const { whom } = wordsOf(kind, value).words;
  return whom === undefined ? kind : `${kind} ${whom}`;
}
