// A campaign's fan-out (DESIGN.md: listmonk's shape): after the 202, the list is read by position
// in batches; each batch's active subscribers go through the one pipeline as list mail (a copy
// each, not debited again: the campaign was), and the batch's copies and the campaign's new position
// are one store write. So a fan-out stopped anywhere (a crash, a stop) goes on from where its last
// batch was stored: nobody is skipped or sent twice, and two daemons on one Postgres fanning out the
// same campaign cannot both store a batch from the same position (the second is refused whole).
import type { DepsOf } from '../deps.js';
import { isSvcError } from '../errors.js';
import type { Campaign } from '../model/campaign.js';
import { copySubscriber } from '../model/list.js';
import type { CopySubscriber } from '../model/message.js';
import type { Workspace } from '../model/workspace.js';
import type { Send } from '../model/send.js';

/** Subscribers read per batch: 5 jobs of 100 copies, one store write. */
export const FAN_OUT_BATCH = 500;

export function fanOutService(deps: DepsOf<'campaigns' | 'subscribers' | 'workspaces'>, send: Send) {
  const { store, clock, log, bus } = deps;

  /**
   * One batch of the campaign (the store's copy of it, read afresh); false once there is nothing
   * left to do for it (fanned out, cancelled or gone).
   */
  async function batch(ws: Workspace, c: Campaign): Promise<boolean> {
    if (c.status === 'cancelled' || c.fanned_out_at) return false;
    const now = clock.now().toISOString();
    if (c.status === 'queued') await store.campaigns.setStatus(ws.id, c.id, 'sending', ['queued'], now);
    const page = await store.subscribers.activeAfter(ws.id, c.list_id, c.cursor, FAN_OUT_BATCH);
    const subscribers = new Map<string, CopySubscriber>(page.data.map((s) => [s.email, copySubscriber(s)]));
    await send(
      ws,
      {
        from: { name: c.from_name || null, address: c.from },
        to: page.data.map((s) => ({ name: null, address: s.email })),
        cc: [],
        bcc: [],
        subject: c.subject,
        html: c.html,
        text: c.text,
      },
      {
        source: 'broadcast',
        list: {
          subscribers,
          debited: true,
          campaign: { id: c.id, from: c.cursor, cursor: page.cursor, copies: c.copies, ...(page.done ? { fanned_out_at: now } : {}) },
          ...(c.preheader ? { preheader: c.preheader } : {}),
        },
      },
    );
    if (page.done) deps.events?.event('info', 'broadcast fanned out', { workspace: ws.id, campaign: c.id });
    return !page.done;
  }

  /**
   * Campaigns still to fan out; fanned-out ones whose copies have all been handed off (or
   * bounced) are marked sent on the way.
   */
  async function toFanOut(): Promise<Campaign[]> {
    const out: Campaign[] = [];
    for (const c of await store.campaigns.unfinished()) {
      if (!c.fanned_out_at) out.push(c);
      else if (c.status === 'sending' && (await store.campaigns.counts(c.workspace_id, c.id)).queued === 0) {
        await store.campaigns.setStatus(c.workspace_id, c.id, 'sent', ['sending'], clock.now().toISOString());
      }
    }
    return out;
  }

  return {
    toFanOut,
    /**
     * Fans out every unfinished campaign, a batch of each in turn (so one large campaign does not
     * hold another back), until all are done or `stopping()` says to stop. Returns how many
     * batches it stored.
     */
    async runOnce(stopping: () => boolean = () => false): Promise<number> {
      const workspaces = new Map((await store.workspaces.list()).map((w) => [w.id, w]));
      let stored = 0;
      let open = await toFanOut();
      while (open.length && !stopping()) {
        const next: Campaign[] = [];
        for (const c of open) {
          if (stopping()) break;
          const ws = workspaces.get(c.workspace_id);
          if (!ws) continue;
          // Read afresh: a cancel, or another daemon's batches, since the last turn.
          const fresh = await store.campaigns.get(ws.id, c.id);
          if (!fresh) continue;
          try {
            if (await batch(ws, fresh)) next.push(fresh);
            stored++;
          } catch (e) {
            // Another daemon stored this position first: read the campaign again next turn.
            if (isSvcError(e) && e.kind === 'conflict') next.push(fresh);
            else log.warn(`broadcast ${c.id}: fan-out stopped for now: ${(e as Error).message}`);
          }
        }
        open = next;
      }
      if (stored) bus?.publish('queued');
      return stored;
    },
  };
}

export type FanOutService = ReturnType<typeof fanOutService>;
