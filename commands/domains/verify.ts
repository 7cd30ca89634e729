import { SvcError } from '../../src/errors.js';
import { SETTINGS, overriddenByFlags } from '../../src/settings.js';
import type { CommandSpec } from '../spec.js';
import { printDomain } from './render.js';
import type { Context } from '../context.js';
import type { DomainView } from '../../src/domains/domains.js';
import { EXIT_SIGINT, onStop } from '../stop.js';

/** Settings whose flag makes a check a one-off when it departs from the instance's own. */
const ONE_OFF = ['dnsServer', 'serviceDomain', 'mxHost'] as const;
const flagOf = (name: string) => SETTINGS.find((s) => s.name === name)?.flag?.split(' ')[0] ?? name;

/** Exit status of a check (CONTRACT.md): 0 all five pass, 3 checked, not yet; 1 when DNS did not answer (could not check). */
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
    const ws = await ctx.workspace();
    // A check with a DNS server or names given for this run only, against what the instance is set
    // to, is a probe: it says what it found and leaves the domain's record (the daemon's view) alone.
    const { file } = ctx.settings();
    const overrides = overriddenByFlags(ONE_OFF, ctx.flags, ctx.io.env, file?.values ?? null);
    const keep = overrides.length === 0;
    if (!keep)
      ctx.out.note(
        `checked with ${overrides.map(flagOf).join(', ')} given for this run (the instance has another): the results are shown, not stored`,
      );
    // Each round opens the store and lets go of it after, so that other commands can use it
    // between rounds (a file store with no daemon is held by one process at a time).
    const check = async () => {
      try {
        return await (await ctx.parts('domains')).domains.verify(ws, domain!, { keep });
      } finally {
        await ctx.release();
      }
    };
    if (opts.watch) {
      const interval = opts.interval === undefined ? 5 : Number(opts.interval);
      if (!(interval >= 0.1 && interval <= 3600))
        throw new SvcError('usage', `invalid --interval '${String(opts.interval)}': 0.1 to 3600 seconds`);
      // A live view on a terminal; into a pipe or with --json, a line (or a JSON document) a round.
      if (ctx.out.json || !ctx.io.stdout.isTTY) return watchPlain(ctx, check, interval * 1000);
      await ctx.out.inkColours();
      const { watchDomain } = await import('./watch.js');
      // The live view ends when all pass, or on Ctrl-C (a key to it, in raw mode).
      return (await watchDomain(check, interval * 1000)) ? 0 : EXIT_SIGINT;
    }
    const deadline = Date.now() + wait * 1000;
    // Ctrl-C while waiting is exit 130 (SIGTERM 143), as for the live views.
    const stop = onStop();
    let r = await check();
    try {
      for (let delay = 1000; !r.passed && Date.now() < deadline; delay = Math.min(delay * 2, 30_000)) {
        const pending = r.view.records.filter((x) => x.status !== 'Verified' && x.status !== 'Recommended').map((x) => x.purpose);
        ctx.out.note(`waiting for ${pending.join(', ')}; checking again in ${Math.round(Math.min(delay, deadline - Date.now()) / 1000)}s`);
        await stop.sleep(Math.max(0, Math.min(delay, deadline - Date.now())));
        if (stop.signal.aborted) return stop.code();
        r = await check();
      }
    } finally {
      stop.dispose();
    }
    ctx.out.result(r.view, () => printDomain(ctx.out, r.view));
    // DNS that did not answer is "could not check" (exit 1), not "checked, not yet" (3).
    if (!r.passed && r.unanswered.length) {
      const first = r.unanswered[0]!;
      ctx.out.note(
        `${r.view.domain}: could not check ${r.unanswered.map((u) => u.purpose).join(', ')}: ${first.reason} (--dns-server, --dns-timeout)`,
      );
      return 1;
    }
    if (!r.passed) ctx.out.note(`${r.view.domain}: not all five records pass yet`);
    return r.passed ? 0 : NOT_YET;
  },
} satisfies CommandSpec;

/**
 * `--watch` into a pipe or with --json: each round's result as one line (`HH:MM:SS domain waiting:
 * ownership Verified, mx Waiting, ...`) or one JSON document per line (NDJSON), until all pass
 * (exit 0) or a signal (130, 143). A failed round (DNS down) is said on stderr and tried again.
 */
async function watchPlain(ctx: Context, check: () => Promise<{ view: DomainView; passed: boolean }>, intervalMs: number): Promise<number> {
  const stop = onStop();
  try {
    while (!stop.signal.aborted) {
      try {
        const r = await check();
        if (ctx.out.json) ctx.out.jsonLine(r.view);
        else
          ctx.out.line(
            `${new Date().toISOString().slice(11, 19)} ${r.view.domain} ${r.passed ? 'verified' : 'waiting'}: ${r.view.records.map((x) => `${x.purpose} ${x.status ?? '-'}`).join(', ')}`,
          );
        if (r.passed) return 0;
      } catch (e) {
        ctx.out.note(`${(e as Error).message}; trying again`);
      }
      await stop.sleep(intervalMs);
    }
    return stop.code();
  } finally {
    stop.dispose();
  }
}
