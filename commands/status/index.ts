// svc status: the running daemon(s) at a glance (src/status/status.ts). A live view on a terminal,
// redrawn when the daemon announces work and every second besides (q or Ctrl-C leaves); plain text
// when piped; one JSON document with --json. Exit 1 when no daemon reports on this store.
import type { CommandSpec } from '../spec.js';
import { printable } from '../terminal.js';
import { statusLines } from './lines.js';

export default {
  verb: 'status',
  summary: 'the running daemon at a glance: listeners, uptime, queue, rates, faults, webhook backlog, ticks, domains (live on a terminal)',
  options: [{ flags: '--once', description: 'on a terminal too: print once and leave' }],
  async run(ctx, _args, opts) {
    const service = await ctx.parts('status');
    const first = await service.status.view();
    if (ctx.out.json || !ctx.io.stdout.isTTY || opts.once === true || !first.running) {
      ctx.out.result(first, () => {
        for (const l of statusLines(first)) ctx.out.line(printable(l, { inline: true }));
      });
      return first.running ? 0 : 1;
    }
    const events = service.store.events;
    if (events) service.bus.connect(events, { hear: true });
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    const { statusView } = await import('./view.js');
    await statusView(
      () => service.status.view(),
      () => service.bus.next('queued', 1000, stop.signal),
      stop.signal,
    );
    return 0;
  },
} satisfies CommandSpec;
