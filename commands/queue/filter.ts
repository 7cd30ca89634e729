// The filters `svc queue list` and `svc queue retry --all` share: the global --workspace (every
// workspace without it), --domain, --recipient, --older-than.
import type { Context } from '../context.js';
import type { OptionSpec } from '../spec.js';
import type { QueueFilter } from '../../src/send/queue-admin.js';
import { parseAge } from '../time.js';

export const FILTER_OPTIONS: OptionSpec[] = [
  { flags: '--domain <domain>', description: 'only mail to this recipient domain' },
  { flags: '--recipient <text>', description: 'only recipients whose address contains this (case-insensitive)' },
  { flags: '--older-than <age>', description: 'only mail queued at least this long ago (90s, 30m, 2h, 7d)' },
];

export async function queueFilter(ctx: Context, opts: Record<string, unknown>): Promise<QueueFilter> {
  const olderThan = opts.olderThan === undefined ? undefined : parseAge(String(opts.olderThan), '--older-than');
  const name = ctx.config().workspace;
  const ws = name ? await (await ctx.parts('workspaces')).workspaces.byName(name) : undefined;
  return {
    ...(ws ? { workspaceId: ws.id } : {}),
    ...(opts.domain ? { domain: String(opts.domain) } : {}),
    ...(opts.recipient ? { recipient: String(opts.recipient) } : {}),
    ...(olderThan !== undefined ? { olderThanSeconds: olderThan } : {}),
  };
}
