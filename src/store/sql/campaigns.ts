// Campaigns (broadcasts) on either SQL backend. Created with their quota debit in one transaction;
// a fan-out batch's progress is written in the accept transaction of its copies (messages.ts);
// counts are read from the copies' records by their campaign.
import { sql, type Selectable } from '#kysely';
import type { Campaign } from '../../model/campaign.js';
import type { CampaignStore } from '../port/campaigns.js';
import { iso, isoOrNull, type SqlDb } from './db.js';
import { debitQuota, refusalOf } from './messages.js';
import type { CampaignsTable } from './tables.js';

const COLUMNS = [
  'id',
  'workspace_id',
  'list_id',
  'from_addr',
  'from_name',
  'subject',
  'html',
  'text_body',
  'preheader',
  'status',
  'recipients',
  'cursor',
  'copies',
  'unsubscribed',
  'created_at',
  'updated_at',
  'fanned_out_at',
] as const;

const toCampaign = (r: Pick<Selectable<CampaignsTable>, (typeof COLUMNS)[number]>): Campaign => ({
  id: r.id,
  workspace_id: r.workspace_id,
  list_id: r.list_id,
  from: r.from_addr,
  from_name: r.from_name,
  subject: r.subject,
  html: r.html,
  text: r.text_body,
  preheader: r.preheader,
  status: r.status as Campaign['status'],
  recipients: r.recipients,
  cursor: Number(r.cursor),
  copies: r.copies,
  unsubscribed: r.unsubscribed,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  fanned_out_at: isoOrNull(r.fanned_out_at),
});

export function sqlCampaigns(db: SqlDb): CampaignStore {
  return {
    create: async (c, debit) => {
      try {
        return await db.tx(async (q) => {
          await db.lockKey(q, `svc_send:${c.workspace_id}`);
          await debitQuota(db, q, c.workspace_id, [debit]);
          const { from, text, ...rest } = c;
          await q
            .insertInto('campaigns')
            .values({ ...rest, from_addr: from, text_body: text })
            .execute();
          return { ...c };
        });
      } catch (e) {
        const r = refusalOf(e);
        if (r.refused === 'send_quota') return r;
        throw e;
      }
    },
    get: async (workspaceId, id) => {
      const r = await db.run((q) =>
        q.selectFrom('campaigns').select(COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst(),
      );
      return r ? toCampaign(r) : null;
    },
    list: async (workspaceId) =>
      (
        await db.run((q) =>
          q.selectFrom('campaigns').select(COLUMNS).where('workspace_id', '=', workspaceId).orderBy('seq', 'desc').execute(),
        )
      ).map(toCampaign),
    unfinished: async () =>
      (
        await db.run((q) => q.selectFrom('campaigns').select(COLUMNS).where('status', 'in', ['queued', 'sending']).orderBy('seq').execute())
      ).map(toCampaign),
    setStatus: async (workspaceId, id, status, from, at) => {
      const r = await db.run((q) =>
        q
          .updateTable('campaigns')
          .set({ status, updated_at: at })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .where('status', 'in', from)
          .returning(COLUMNS)
          .executeTakeFirst(),
      );
      return r ? toCampaign(r) : null;
    },
    // Against the newest campaign that sent the subscriber a copy.
    countUnsubscribe: async (workspaceId, subscriberId) => {
      await db.run((q) =>
        q
          .updateTable('campaigns')
          .set((e) => ({ unsubscribed: e(e.ref('unsubscribed'), '+', 1) }))
          .where(
            'id',
            '=',
            q
              .selectFrom('messages')
              .select('campaign_id')
              .where('subscriber_id', '=', subscriberId)
              .where('campaign_id', 'is not', null)
              .where('workspace_id', '=', workspaceId)
              .orderBy('seq', 'desc')
              .limit(1),
          )
          .execute(),
      );
    },
    counts: async (workspaceId, id) => {
      const n = (cond: ReturnType<typeof sql>) => sql<string | number>`coalesce(sum(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`;
      const r = await db.run((q) =>
        q
          .selectFrom('messages')
          .select([
            n(sql`status = 'queued'`).as('queued'),
            n(sql`status = 'sent'`).as('sent'),
            n(sql`status = 'bounced'`).as('bounced'),
            n(sql`open_count > 0`).as('opened'),
            n(sql`click_count > 0`).as('clicked'),
          ])
          .where('campaign_id', '=', id)
          .where('workspace_id', '=', workspaceId)
          .executeTakeFirstOrThrow(),
      );
      return {
        queued: Number(r.queued),
        sent: Number(r.sent),
        bounced: Number(r.bounced),
        opened: Number(r.opened),
        clicked: Number(r.clicked),
      };
    },
  };
}
