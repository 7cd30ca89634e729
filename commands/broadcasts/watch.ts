import type { CommandSpec } from '../spec.js';
import { onStop } from '../stop.js';
import { progressLine, progressMeter, type Progress } from './progress.js';

/** How often the campaign is read again. */
const EVERY_MS = 500;

export default {
  noun: 'broadcasts',
  verb: 'watch',
  summary:
    "a campaign's progress until it is sent or cancelled: a live view on a terminal (progress bar, rate, counts, time left), a line per change otherwise, NDJSON with --json",
  args: ['<id>'],
  ids: { args: { 0: 'campaign' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('broadcasts');
    const ws = await ctx.workspace();
    const meter = progressMeter();
    // Read once first: an unknown id is an error before anything is drawn.
    let first: Progress | null = meter(await service.broadcasts.show(ws, id!));
    // Stopped before the campaign ended: 130 for Ctrl-C (SIGINT, or the key in the live view), 143 for SIGTERM.
    const stop = onStop();
    let finished = false;
    const next = async (): Promise<Progress> => {
      if (first) {
        const p = first;
        first = null;
        finished = p.finished;
        return p;
      }
      // A file store with no daemon is let go of between reads, so that other commands can use it.
      await ctx.release();
      await stop.sleep(EVERY_MS);
      const p = meter(await (await ctx.parts('broadcasts')).broadcasts.show(ws, id!));
      finished = p.finished;
      return p;
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
        if (p.finished) return 0;
      }
      return stop.code();
    }
    await ctx.out.inkColours();
    const { watchView } = await import('./watch-view.js');
    await watchView(next, stop.signal);
    return finished ? 0 : stop.code();
  },
} satisfies CommandSpec;
