/**
 * What flipped since the night before: the configurations whose outcome (mark.ts) changed
 * between two nights of one campaign that both ran them. The job summary (summary-md.ts)
 * and summary.html say the same flips.
 */
import { MARK_TEXT, type Mark } from './mark.js';
import type { CampaignSummary } from './summary-record.js';
import { talliesOf } from './tallies.js';

export interface Flip {
  configuration: string;
  expect: string;
  before: Mark;
  now: Mark;
  text: { before: string; now: string };
}

/** The night a campaign belongs to: its start's date (UTC), YYYY-MM-DD. */
export const nightOf = (s: Pick<CampaignSummary, 'startedAt'>) => s.startedAt.slice(0, 10);

/** The configuration's outcome by night: its mark and "met 1 of 2". */
function marks(s: CampaignSummary): Map<string, { expect: string; mark: Mark; met: number; ran: number }> {
  return new Map(
    talliesOf(s).configurations.map((t) => [
      t.configuration,
      { expect: t.expect, mark: t.mark, met: t.met, ran: t.ran },
    ]),
  );
}

/** Configurations whose outcome changed since `previous` (both nights ran them). */
export function flips(now: CampaignSummary, previous: CampaignSummary): Flip[] {
  const before = marks(previous);
  const out: Flip[] = [];
  for (const [configuration, m] of marks(now)) {
    const b = before.get(configuration);
    if (!b || b.mark === 'not-run' || m.mark === 'not-run' || b.mark === m.mark) continue;
    const word = (x: { mark: Mark; met: number; ran: number }) =>
      `${MARK_TEXT[x.mark].symbol} ${MARK_TEXT[x.mark].word} (${x.met} of ${x.ran})`;
    out.push({ configuration, expect: m.expect, before: b.mark, now: m.mark, text: { before: word(b), now: word(m) } });
  }
  return out;
}

/** The night before and what flipped since, as a page shows it. */
export interface FlipsSince {
  night: string;
  flips: Flip[];
}

export const flipsSince = (now: CampaignSummary, previous: CampaignSummary): FlipsSince => ({
  night: nightOf(previous),
  flips: flips(now, previous),
});
