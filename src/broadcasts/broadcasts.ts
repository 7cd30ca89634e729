// src/broadcasts/: a broadcast to a list (spec.md "Broadcast", "Campaign", "Merge variables").
//
// POST /lists/:id/broadcast answers 202 as soon as its campaign is stored, whatever the list's
// size: the campaign holds the content and is debited from the send quota for every active
// subscriber at once (a broadcast larger than the allowance is refused whole, nothing queued). Its
// copies are made afterwards by the fan-out (fan-out.ts), in batches, through the one pipeline.
import { upgradeUrlOf } from '../config.js';
import type { DepsOf } from '../deps.js';
import { SvcError } from '../errors.js';
import type { Campaign, CampaignCounts } from '../model/campaign.js';
import type { Workspace } from '../model/workspace.js';
import { assertWritable } from '../workspaces/trial.js';
import { registeredSender } from '../send/sender.js';
import { bodyText, objectBody, text } from '../request.js';
import { sendWindows, sendQuotaError } from '../workspaces/send-quota.js';

/** A subject is one header line (RFC 5322 998); the bodies are bounded by the request's size. */
const MAX_SUBJECT = 998;

/** spec.md "Other response shapes": the broadcast result. */
export interface BroadcastResult {
  campaign_id: string;
  status: 'queued';
  message: string;
}

/** A campaign as `svc broadcasts list|show` and --json show it: the record without its bodies, and its copies' counts. */
export const campaignView = (c: Campaign, counts?: CampaignCounts) => ({
  id: c.id,
  list_id: c.list_id,
  status: c.status,
  subject: c.subject,
  from: c.from,
  from_name: c.from_name,
  recipients: c.recipients,
  copies: c.copies,
  ...(counts ? { counts: { ...counts, unsubscribed: c.unsubscribed } } : {}),
  created_at: c.created_at,
  updated_at: c.updated_at,
  fanned_out_at: c.fanned_out_at,
});

/** A broadcast's request, checked for shape: a subject (one line) and an HTML body, the rest optional. */
export function broadcastInput(input: unknown) {
  const body = objectBody(input);
  const subject = bodyText(body, 'subject');
  const html = bodyText(body, 'body_html');
  if (!subject?.trim() || !html?.trim()) throw new SvcError('invalid_request', 'subject and body_html required');
  if (subject.length > MAX_SUBJECT || /[\r\n]/.test(subject))
    throw new SvcError('invalid_request', `subject must be one line of at most ${MAX_SUBJECT} characters`);
  return {
    subject,
    html,
    given: bodyText(body, 'body_text'),
    preheader: text(body, 'preheader') ?? '',
    fromName: text(body, 'from_name'),
    from: text(body, 'from_address'),
  };
}

export function broadcastService({
  store,
  clock,
  random,
  config,
  bus,
}: DepsOf<'lists' | 'subscribers' | 'campaigns' | 'domains' | 'addresses'>) {
  async function campaign(ws: Workspace, id: string): Promise<Campaign> {
    const c = await store.campaigns.get(ws.id, id);
    if (!c) throw new SvcError('not_found', 'campaign not found');
    return c;
  }

  return {
    /** POST /lists/:id/broadcast. */
    async broadcast(ws: Workspace, listId: string, input: unknown): Promise<BroadcastResult> {
      const at = clock.now();
      assertWritable(ws, at);
      const { subject, html, given, preheader, ...b } = broadcastInput(input);
      const list = await store.lists.get(ws.id, listId);
      if (!list) throw new SvcError('not_found', 'list not found');
      const fromName = b.fromName ?? list.from_name;
      const from = (b.from ?? list.from_address).trim().toLowerCase();
      if (!from) throw new SvcError('invalid_request', 'from_address required (list has none)');
      const registered = await registeredSender(store, ws, from);
      if ('why' in registered)
        throw new SvcError('sender_not_authorized', `from address '${from}' is not registered for this account. ${registered.why}`);
      // Every active subscriber counts now: the quota is taken whole or not at all.
      const recipients = (await store.subscribers.list(ws.id, listId, { status: 'active', limit: 0, offset: 0 })).total;
      const now = at.toISOString();
      const c: Campaign = {
        id: random.uuid(),
        workspace_id: ws.id,
        list_id: listId,
        from,
        from_name: fromName,
        subject,
        html,
        // Made once here (with its variables still to fill), not once per copy.
        // html-to-text is loaded by a broadcast, not by every command that makes the service.
        text: given ?? (await import('../send/compose/text.js')).textFromHtml(html),
        preheader,
        status: 'queued',
        recipients,
        cursor: 0,
        copies: 0,
        unsubscribed: 0,
        created_at: now,
        updated_at: now,
        fanned_out_at: null,
      };
      const stored = await store.campaigns.create(c, { n: recipients, windows: sendWindows(ws, at) });
      if ('refused' in stored) throw sendQuotaError(stored, ws, upgradeUrlOf(config, ws), 'api_sends');
      bus?.publish('campaign');
      return {
        campaign_id: c.id,
        status: 'queued',
        message: `broadcast to ${recipients} active subscriber${recipients === 1 ? '' : 's'} of list '${list.name}' queued`,
      };
    },

    async list(ws: Workspace) {
      return (await store.campaigns.list(ws.id)).map((c) => campaignView(c));
    },

    async show(ws: Workspace, id: string) {
      const c = await campaign(ws, id);
      return campaignView(c, await store.campaigns.counts(ws.id, id));
    },

    /** Stops the campaign: its fan-out ends, and copies not yet handed off are not sent. */
    async cancel(ws: Workspace, id: string) {
      await campaign(ws, id);
      const done = await store.campaigns.setStatus(ws.id, id, 'cancelled', ['queued', 'sending'], clock.now().toISOString());
      if (!done) {
        const c = await campaign(ws, id);
        if (c.status === 'cancelled') return campaignView(c, await store.campaigns.counts(ws.id, id));
        throw new SvcError('conflict', `campaign ${id} is ${c.status}: only a queued or sending campaign can be cancelled`);
      }
      // Its queued copies are bounced as the delivery worker reaches them (src/send/outbound-job.ts).
      bus?.publish('queued');
      const c = await campaign(ws, id);
      return campaignView(c, await store.campaigns.counts(ws.id, id));
    },
  };
}

export type BroadcastService = ReturnType<typeof broadcastService>;
