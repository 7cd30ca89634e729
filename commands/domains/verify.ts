import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';
import { printDomain } from './render.js';

/** Exit status of a check (CONTRACT.md): 0 all five pass, 3 checked, not yet. */
const NOT_YET = 3;

export default {
  noun: 'domains',
  verb: 'verify',
  summary: 'check the five records in DNS now; exit 0 when all pass (domain verified), 3 otherwise',
  args: ['<domain>'],
  options: [
    { flags: '--wait <seconds>', description: 'poll with backoff until verified or the time is up' },
    { flags: '--watch', description: 'a live view of the five checks, re-run every few seconds until all pass or Ctrl-C' },
    { flags: '--interval <seconds>', description: 'with --watch: seconds between checks (default 5)' },
  ],
  async run(ctx, [domain], opts) {
    const wait = opts.wait === undefined ? 0 : Number(opts.wait);
    if (!Number.isFinite(wait) || wait < 0 || !/^\d+$/.test(String(opts.wait ?? '0')))
      throw new SvcError('usage', `invalid --wait '${String(opts.wait)}': whole seconds`);
    const service = await ctx.service();
    const ws = await ctx.workspace();
    if (opts.watch) {
      const interval = opts.interval === undefined ? 5 : Number(opts.interval);
      if (!(interval >= 0.1 && interval <= 3600))
        throw new SvcError('usage', `invalid --interval '${String(opts.interval)}': 0.1 to 3600 seconds`);
      const { watchDomain } = await import('./watch.js');
      return (await watchDomain(service, ws, domain!, interval * 1000)) ? 0 : NOT_YET;
    }
    const deadline = Date.now() + wait * 1000;
    let r = await service.domains.verify(ws, domain!);
    for (let delay = 1000; !r.passed && Date.now() < deadline; delay = Math.min(delay * 2, 30_000)) {
      const pending = r.view.records.filter((x) => x.status !== 'Verified' && x.status !== 'Recommended').map((x) => x.purpose);
      ctx.out.note(`waiting for ${pending.join(', ')}; checking again in ${Math.round(Math.min(delay, deadline - Date.now()) / 1000)}s`);
      await new Promise((res) => setTimeout(res, Math.max(0, Math.min(delay, deadline - Date.now()))));
      r = await service.domains.verify(ws, domain!);
    }
    ctx.out.result(r.view, () => printDomain(ctx.out, r.view));
    if (!r.passed) ctx.out.note(`${r.view.domain}: not all five records pass yet`);
    return r.passed ? 0 : NOT_YET;
  },
} satisfies CommandSpec;
