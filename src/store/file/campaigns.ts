// File store: campaigns, in a journal of their own (campaigns/all.jsonl; they outlive the mail
// journal's days), held in memory whole (they are few; a campaign's body is its largest part).
// Lines: `campaign` (created, with its quota debit), `campaign_status`, `campaign_progress`,
// `campaign_unsub`. A fan-out batch's progress is part of the accept line of its copies in the
// mail journal (one write: copies and cursor together); the progress line written after it only
// keeps the position once that day of the mail journal is gone. Positions only grow, so the two
// are merged by taking the larger.
import type { Campaign, CampaignProgress } from '../../model/campaign.js';
import type { QuotaWindow } from '../../model/quota.js';
import type { SendQuotaRefusal } from '../../model/refusal.js';
import type { CampaignStore } from '../port/campaigns.js';
import type { MessageStore } from '../port/messages.js';
import type { Journal } from './journal.js';
import type { Line, Replay } from './replay.js';
import { shape } from './shapes.js';
import type { Message } from '../../model/message.js';

type Debit = { n: number; windows: QuotaWindow[] };

interface CreateLine extends Line {
  t: 'campaign';
  c: Campaign;
  debit: Debit;
}
interface StatusLine extends Line {
  t: 'campaign_status';
  id: string;
  status: Campaign['status'];
}
interface ProgressLine extends Line, CampaignProgress {
  t: 'campaign_progress';
}
interface UnsubLine extends Line {
  t: 'campaign_unsub';
  id: string;
}

export function campaignLines(r: Replay): void {
  r.kind('campaign', (v) => {
    const why = shape({ at: 's', c: 'o', debit: 'o' })(v);
    if (why) return why;
    const c = shape({
      id: 's',
      workspace_id: 's',
      list_id: 's',
      from: 's',
      subject: 's',
      html: 's',
      text: 's',
      status: 's',
      cursor: 'n',
      copies: 'n',
    })((v as { c: unknown }).c);
    return c && `c: ${c}`;
  })
    .kind('campaign_status', shape({ at: 's', id: 's', status: 's' }))
    .kind('campaign_progress', shape({ at: 's', id: 's', cursor: 'n', copies: 'n' }))
    .kind('campaign_unsub', shape({ at: 's', id: 's' }));
}

const PARTITION = 'all';
const copyCampaign = (c: Campaign): Campaign => ({ ...c });

/** What the campaigns need of the message aggregate: the send quota's counts, and the copies. */
export interface CampaignMessages {
  /** Reserves `debit` for the workspace, or says which window it would go over; release() gives it back. */
  reserve(workspaceId: string, debit: Debit): SendQuotaRefusal | { release(): void };
  /** Counts a stored debit (a campaign read back). */
  count(workspaceId: string, debit: Debit): void;
  /** The campaign's copy records. */
  copiesOf(campaignId: string): Iterable<Message>;
}

/**
 * The campaigns on their journal (`replay`); `mail` is the mail journal's registry, whose accept
 * lines carry fan-out progress.
 */
export function fileCampaigns(
  log: Journal<Line>,
  replay: Replay,
  mail: Replay,
  msgs: CampaignMessages,
  now: () => Date,
): { store: CampaignStore; keepProgress(accept: MessageStore['accept']): MessageStore['accept'] } {
  const byId = new Map<string, Campaign>();
  /** Per campaign: the end of the chain of its fan-out batches being stored. */
  const chains = new Map<string, Promise<unknown>>();
  campaignLines(replay);
  const progress = (p: CampaignProgress) => {
    const c = byId.get(p.id);
    if (!c) return;
    if (p.cursor > c.cursor) c.cursor = p.cursor;
    if (p.copies > c.copies) c.copies = p.copies;
    if (p.fanned_out_at && !c.fanned_out_at) c.fanned_out_at = p.fanned_out_at;
  };
  replay.on<CreateLine>('campaign', (l) => {
    byId.set(l.c.id, copyCampaign(l.c));
    msgs.count(l.c.workspace_id, l.debit);
  });
  replay.on<StatusLine>('campaign_status', (l) => {
    const c = byId.get(l.id);
    if (c) Object.assign(c, { status: l.status, updated_at: l.at });
  });
  replay.on<ProgressLine>('campaign_progress', (l) => progress(l));
  /** Subscriber id → the newest campaign that sent it a copy (its unsubscribe is counted there). */
  const lastSent = new Map<string, string>();
  mail.on<Line & { campaign?: CampaignProgress; messages: Message[] }>('accept', (l) => {
    if (!l.campaign) return;
    progress(l.campaign);
    for (const m of l.messages) if (m.subscriber) lastSent.set(m.subscriber.id, l.campaign.id);
  });
  replay.on<UnsubLine>('campaign_unsub', (l) => {
    const c = byId.get(l.id);
    if (c) c.unsubscribed++;
  });
  const write = async (line: Line): Promise<void> => {
    await log.append(PARTITION, [line]);
    replay.apply(line);
  };

  const store: CampaignStore = {
    create: async (c, debit) => {
      const held = msgs.reserve(c.workspace_id, debit);
      if ('refused' in held) return held;
      const line: CreateLine = {
        t: 'campaign',
        at: c.created_at,
        c: copyCampaign(c),
        debit: { n: debit.n, windows: debit.windows.map((w) => ({ ...w })) },
      };
      try {
        await log.append(PARTITION, [line]);
      } finally {
        // Applying the line counts it for good.
        held.release();
      }
      replay.apply(line);
      return copyCampaign(c);
    },
    get: async (workspaceId, id) => {
      const c = byId.get(id);
      return c && c.workspace_id === workspaceId ? copyCampaign(c) : null;
    },
    list: async (workspaceId) =>
      [...byId.values()]
        .filter((c) => c.workspace_id === workspaceId)
        .reverse()
        .map(copyCampaign),
    unfinished: async () => [...byId.values()].filter((c) => c.status === 'queued' || c.status === 'sending').map(copyCampaign),
    setStatus: async (workspaceId, id, status, from, at) => {
      const c = byId.get(id);
      if (!c || c.workspace_id !== workspaceId || !from.includes(c.status)) return null;
      const line: StatusLine = { t: 'campaign_status', at, id, status };
      await write(line);
      return copyCampaign(c);
    },
    countUnsubscribe: async (workspaceId, subscriberId) => {
      const id = lastSent.get(subscriberId);
      if (!id || byId.get(id)?.workspace_id !== workspaceId) return;
      const line: UnsubLine = { t: 'campaign_unsub', at: now().toISOString(), id };
      await write(line);
    },
    counts: async (workspaceId, id) => {
      const out = { queued: 0, sent: 0, bounced: 0, opened: 0, clicked: 0 };
      const c = byId.get(id);
      if (!c || c.workspace_id !== workspaceId) return out;
      for (const m of msgs.copiesOf(id)) {
        out[m.status]++;
        if (m.open_count > 0) out.opened++;
        if (m.click_count > 0) out.clicked++;
      }
      return out;
    },
  };
  return {
    store,
    // A fan-out batch's progress is applied from its accept line; once that is written, it is kept
    // here too (see above). A crash between the two leaves the accept line to say it.
    keepProgress: (accept) => async (batch) => {
      const p = batch.campaign;
      if (!p) return accept(batch);
      // A campaign's batches are stored one at a time, so the position checked is the one written after.
      const run = (chains.get(p.id) ?? Promise.resolve()).then(async () => {
        if (byId.get(p.id)?.cursor !== p.from) return { refused: 'campaign_moved' as const };
        const refused = await accept(batch);
        if (refused) return refused;
        const line: ProgressLine = { t: 'campaign_progress', at: now().toISOString(), ...p };
        await log.append(PARTITION, [line]);
        return null;
      });
      const tail = run.catch(() => {});
      chains.set(p.id, tail);
      void tail.then(() => chains.get(p.id) === tail && chains.delete(p.id));
      return run;
    },
  };
}
