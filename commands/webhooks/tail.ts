import type { CommandSpec } from '../spec.js';
import type { AttemptView } from '../../src/webhooks/webhooks.js';
import { parseSince } from './since.js';

/**
 * Attempts are read again when the daemon announces some (over the admin socket, or LISTEN on
 * Postgres), and at least this often besides.
 */
const FALLBACK_MS = 2_000;
/** With nobody to announce (a file store no daemon owns), plain polling. */
const POLL_MS = 500;

export default {
  noun: 'webhooks',
  verb: 'tail',
  summary: 'follow delivery attempts as they happen (a live view on a terminal; Ctrl-C to stop)',
  options: [
    { flags: '--endpoint <id>', description: 'attempts to this endpoint only' },
    { flags: '--failed', description: 'failed attempts only' },
    { flags: '--since <time>', description: 'start from this ISO time or age (default: now)' },
  ],
  async run(ctx, _args, opts) {
    const service = await ctx.service();
    const ws = await ctx.workspace();
    let since = opts.since ? parseSince(opts.since as string) : new Date().toISOString();
    const seen = new Set<string>();
    /** Attempts not shown yet, oldest first. */
    const poll = async (): Promise<AttemptView[]> => {
      const rows = await service.webhooks.deliveries(ws, {
        ...(opts.endpoint ? { endpoint_id: opts.endpoint as string } : {}),
        ...(opts.failed ? { failed: true } : {}),
        since,
        limit: 1000,
      });
      const fresh = rows.filter((r) => !seen.has(r.id)).reverse();
      for (const r of fresh) seen.add(r.id);
      // Rows at the same instant as the newest may still arrive; older ids can be forgotten.
      if (rows[0]) {
        since = rows[0].attempted_at;
        for (const r of rows) if (r.attempted_at < since) seen.delete(r.id);
      }
      return fresh;
    };
    const events = service.store.events;
    if (events) service.bus.connect(events, { hear: true });
    const stop = new AbortController();
    const wait = () => service.bus.next('attempted', events ? FALLBACK_MS : POLL_MS, stop.signal);
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    if (ctx.out.json || !ctx.io.stdout.isTTY) {
      // Not a terminal: one line per attempt (a JSON object per line with --json), until stopped.
      while (!stop.signal.aborted) {
        for (const r of await poll()) ctx.out.line(ctx.out.json ? JSON.stringify(r) : `${r.attempted_at} ${r.ok ? 'ok  ' : 'FAIL'} ${r.status_code ?? '-'} ${r.event} ${r.endpoint_id} ${r.id}${r.error ? ` ${r.error}` : ''}`);
        await wait();
      }
      return;
    }
    const { tailView } = await import('./tail-view.js');
    await tailView(poll, wait, stop.signal);
  },
} satisfies CommandSpec;
