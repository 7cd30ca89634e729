// Postgres: campaigns (migration 0023). Created with their quota debit in one transaction; a fan-out
// batch's progress is written by the accept statement of its copies (messages.ts); counts are read
// from the copies' records by their campaign.
import type { Campaign } from '../../model/campaign.js';
import type { QuotaWindow } from '../../model/quota.js';
import type { CampaignStore } from '../port/campaigns.js';
import { iso, type PgDb } from './db.js';

const COLS =
  'id, workspace_id, list_id, from_addr, from_name, subject, html, text_body, preheader, status, recipients, cursor, copies, unsubscribed, created_at, updated_at, fanned_out_at';

type CampaignRow = Omit<Campaign, 'from' | 'text' | 'cursor' | 'created_at' | 'updated_at' | 'fanned_out_at'> & {
  from_addr: string;
  text_body: string;
  cursor: string;
  created_at: Date;
  updated_at: Date;
  fanned_out_at: Date | null;
};

const toCampaign = (r: CampaignRow): Campaign => ({
  id: r.id,
  workspace_id: r.workspace_id,
  list_id: r.list_id,
  from: r.from_addr,
  from_name: r.from_name,
  subject: r.subject,
  html: r.html,
  text: r.text_body,
  preheader: r.preheader,
  status: r.status,
  recipients: r.recipients,
  cursor: Number(r.cursor),
  copies: r.copies,
  unsubscribed: r.unsubscribed,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  fanned_out_at: iso(r.fanned_out_at),
});

export function pgCampaigns(db: PgDb): CampaignStore {
  return {
    create: async (c, debit) => {
      try {
        return await db.tx(async (x) => {
          await x.query('SELECT svc_debit($1, $2, $3)', [c.workspace_id, debit.n, JSON.stringify(debit.windows)]);
          const { rows } = await x.query<CampaignRow>(
            `INSERT INTO campaigns (${COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING ${COLS}`,
            [
              c.id,
              c.workspace_id,
              c.list_id,
              c.from,
              c.from_name,
              c.subject,
              c.html,
              c.text,
              c.preheader,
              c.status,
              c.recipients,
              c.cursor,
              c.copies,
              c.unsubscribed,
              c.created_at,
              c.updated_at,
              c.fanned_out_at,
            ],
          );
          return toCampaign(rows[0]!);
        });
      } catch (e) {
        // svc_debit's refusal (it aborts the statement) as the store's answer.
        const cause = ((e as { cause?: unknown }).cause ?? e) as { message?: string; detail?: string };
        if (cause.message !== 'svc_quota' || !cause.detail) throw e;
        const d = JSON.parse(cause.detail) as { window: QuotaWindow; used: number };
        return { refused: 'send_quota' as const, window: d.window, used: d.used };
      }
    },
    get: async (workspaceId, id) => {
      const [r] = await db.rows<CampaignRow>(
        `SELECT ${COLS} FROM campaigns WHERE workspace_id = $1 AND id = $2`,
        [workspaceId, id],
        'campaign_get',
      );
      return r ? toCampaign(r) : null;
    },
    list: async (workspaceId) =>
      (await db.rows<CampaignRow>(`SELECT ${COLS} FROM campaigns WHERE workspace_id = $1 ORDER BY seq DESC`, [workspaceId])).map(
        toCampaign,
      ),
    unfinished: async () =>
      (await db.rows<CampaignRow>(`SELECT ${COLS} FROM campaigns WHERE status IN ('queued', 'sending') ORDER BY seq`, [])).map(toCampaign),
    setStatus: async (workspaceId, id, status, from, at) => {
      const [r] = await db.rows<CampaignRow>(
        `UPDATE campaigns SET status = $3, updated_at = $5 WHERE workspace_id = $1 AND id = $2 AND status = ANY($4) RETURNING ${COLS}`,
        [workspaceId, id, status, from, at],
      );
      return r ? toCampaign(r) : null;
    },
    countUnsubscribe: async (workspaceId, subscriberId) => {
      await db.rows(
        `UPDATE campaigns SET unsubscribed = unsubscribed + 1
          WHERE id = (SELECT campaign_id FROM messages WHERE subscriber->>'id' = $2 AND campaign_id IS NOT NULL AND workspace_id = $1 ORDER BY seq DESC LIMIT 1)`,
        [workspaceId, subscriberId],
      );
    },
    counts: async (workspaceId, id) => {
      const [r] = await db.rows<{ queued: string; sent: string; bounced: string; opened: string; clicked: string }>(
        `SELECT count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE status = 'sent') AS sent, count(*) FILTER (WHERE status = 'bounced') AS bounced,
                count(*) FILTER (WHERE open_count > 0) AS opened, count(*) FILTER (WHERE click_count > 0) AS clicked
           FROM messages WHERE campaign_id = $2 AND workspace_id = $1`,
        [workspaceId, id],
        'campaign_counts',
      );
      return {
        queued: Number(r!.queued),
        sent: Number(r!.sent),
        bounced: Number(r!.bounced),
        opened: Number(r!.opened),
        clicked: Number(r!.clicked),
      };
    },
  };
}
