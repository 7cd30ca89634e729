// A campaign's progress as `svc broadcasts watch` shows it: copies handed off (sent or bounced) of
// those it will have, the rate over the last readings and the time left at that rate.
import type { BroadcastService } from '../../src/broadcasts/broadcasts.js';

export type Shown = Awaited<ReturnType<BroadcastService['show']>>;

export interface Progress {
  campaign: Shown;
  /** Copies handed off or bounced. */
  done: number;
  /** Copies it will have: every active subscriber counted when it was accepted, or the copies made once its fan-out ended. */
  total: number;
  /** Copies a second over the last readings; null before two. */
  rate: number | null;
  /** Seconds left at that rate; null when unknown. */
  eta: number | null;
  finished: boolean;
}

/** Readings kept for the rate (about ten seconds at the watch's pace). */
const WINDOW = 20;

export function progressMeter() {
  const readings: Array<{ at: number; done: number }> = [];
  return (c: Shown, at = Date.now()): Progress => {
    const counts = c.counts!;
    const done = counts.sent + counts.bounced;
    const total = c.fanned_out_at ? c.copies : Math.max(c.recipients, c.copies);
    readings.push({ at, done });
    if (readings.length > WINDOW) readings.shift();
    const first = readings[0]!;
    const rate = readings.length > 1 && at > first.at ? ((done - first.done) * 1000) / (at - first.at) : null;
    const finished = c.status === 'sent' || c.status === 'cancelled';
    const eta = finished ? 0 : rate && rate > 0 ? Math.ceil((total - done) / rate) : null;
    return { campaign: c, done, total, rate, eta, finished };
  };
}

/** One plain line of a reading. */
export function progressLine(p: Progress): string {
  const c = p.campaign.counts!;
  const pct = p.total ? Math.floor((p.done * 100) / p.total) : 100;
  return [
    new Date().toISOString().slice(11, 19),
    p.campaign.status,
    `${p.done}/${p.total} (${pct}%)`,
    `sent ${c.sent}`,
    `bounced ${c.bounced}`,
    `queued ${c.queued}`,
    `opened ${c.opened}`,
    `clicked ${c.clicked}`,
    `unsubscribed ${c.unsubscribed}`,
    p.rate === null ? '' : `${Math.round(p.rate)}/s`,
    p.eta === null || p.finished ? '' : `about ${p.eta} s left`,
  ]
    .filter(Boolean)
    .join('  ');
}
