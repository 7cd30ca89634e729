import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';
import { FILTER_OPTIONS, queueFilter } from './filter.js';

export default {
  noun: 'queue',
  verb: 'retry',
  summary:
    'try queued mail again now: one message (ID), or --all that the filters match (after an outage: --all --domain D); its attempts are kept',
  ids: { args: { 0: 'message' } },
  args: ['[id]'],
  options: [{ flags: '--all', description: 'every queued message the filters match (every one without filters)' }, ...FILTER_OPTIONS],
  async run(ctx, [id], opts) {
    if ((id === undefined) === (opts.all !== true))
      throw new SvcError('usage', 'give a message ID, or --all (with --domain, --recipient, --older-than or --workspace to narrow it)');
    if (id !== undefined && (opts.domain || opts.recipient || opts.olderThan))
      throw new SvcError('usage', '--domain, --recipient and --older-than go with --all');
    const service = await ctx.parts('queue');
    const filter = await queueFilter(ctx, opts);
    const r =
      id !== undefined
        ? await service.queue.retry({ messageId: id, ...(filter.workspaceId ? { workspaceId: filter.workspaceId } : {}) })
        : await service.queue.retry(filter);
    ctx.out.result(r, () => {
      ctx.out.line(`${r.retried} message(s) due now`);
      if (r.busy) ctx.out.note(`${r.busy} message(s) are being handed off right now and were left as they are`);
    });
  },
} satisfies CommandSpec;
