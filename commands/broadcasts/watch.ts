import type { CommandSpec } from '../spec.js';
import { progressLine, progressMeter, type Progress } from './progress.js';

/** How often the campaign is read again. */
const EVERY_MS = 500;

export default {
  noun: 'broadcasts',
  verb: 'watch',
  summary:
    "a campaign's progress until it is sent or cancelled: a live view on a terminal (progress bar, rate, counts, time left), a line per change otherwise, NDJSON with --json",
  args: ['<id>'],
  async run(ctx, [id]) {
    const service = await ctx.service();
    const ws = await ctx.workspace();
    const meter = progressMeter();
    // Read once first: an unknown id is an error before anything is drawn.
    let first: Progress | null = meter(await service.broadcasts.show(ws, id!));
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    const next = async (): Promise<Progress> => {
      if (first) {
        const p = first;
        first = null;
        return p;
      }
      await new Promise((r) => setTimeout(r, EVERY_MS));
      return meter(await service.broadcasts.show(ws, id!));
    };
    if (ctx.out.json || !ctx.io.stdout.isTTY) {
      let last = '';
      while (!stop.signal.aborted) {
        const p = await next();
        const c = p.campaign.counts!;
        const key = `${p.campaign.status} ${c.queued} ${c.sent} ${c.bounced} ${c.opened} ${c.clicked} ${c.unsubscribed} ${p.campaign.copies}`;
        if (key !== last) {
          last = key;
          if (ctx.out.json) ctx.out.jsonLine({ ...p.campaign, done: p.done, total: p.total, rate: p.rate, eta_seconds: p.eta });
          else ctx.out.line(progressLine(p));
        }
        if (p.finished) return;
      }
      return;
    }
    const { watchView } = await import('./watch-view.js');
    await watchView(next, stop.signal);
  },
} satisfies CommandSpec;
