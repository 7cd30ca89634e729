// The store's port: campaigns (broadcasts). Few records; their copies are message records, and a
// fan-out batch's progress is stored with its copies (AcceptBatch.campaign), never apart from them.
import type { Campaign, CampaignCounts } from '../../model/campaign.js';
import type { QuotaWindow } from '../../model/quota.js';
import type { SendQuotaRefusal } from '../../model/refusal.js';

export interface CampaignStore {
  /**
   * Stores the campaign and debits its recipients from the send quota, together: refused whole
   * (nothing stored or counted) when a window would go over.
   */
  create(c: Campaign, debit: { n: number; windows: QuotaWindow[] }): Promise<Campaign | SendQuotaRefusal>;
  get(workspaceId: string, id: string): Promise<Campaign | null>;
  /** Newest first. */
  list(workspaceId: string): Promise<Campaign[]>;
  /** Campaigns of every workspace still queued or sending (fanning out, or with copies waiting for hand-off), oldest first. */
  unfinished(): Promise<Campaign[]>;
  /**
   * Moves it to `status` from one of `from` (null when it is not in one of them, or not found):
   * sending when its fan-out starts, sent when its last copy is handed off, cancelled.
   */
  setStatus(
    workspaceId: string,
    id: string,
    status: Campaign['status'],
    from: Array<Campaign['status']>,
    at: string,
  ): Promise<Campaign | null>;
  /** Counts a subscriber's unsubscribe against the newest campaign that sent it a copy (none: nothing counted). */
  countUnsubscribe(workspaceId: string, subscriberId: string): Promise<void>;
  /** Its copies by status, and how many were opened and clicked. */
  counts(workspaceId: string, id: string): Promise<CampaignCounts>;
}
