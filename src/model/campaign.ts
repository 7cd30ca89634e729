// Campaigns: what a broadcast to a list becomes (spec.md "Campaign"; the spec shows only `queued`,
// the rest is ours, docs/lists-and-campaigns.md "Broadcasts"). The copies themselves are message records (source
// broadcast, campaign_id set); the campaign holds the content they are composed from and how far
// its fan-out over the list has come.

/**
 * queued: accepted, no copy made yet; sending: copies being made or handed off; sent: every
 * subscriber has its copy and none is waiting for hand-off; cancelled: stopped by `svc broadcasts
 * cancel` (copies not yet handed off are not sent).
 */
export type CampaignStatus = 'queued' | 'sending' | 'sent' | 'cancelled';
export const CAMPAIGN_STATUSES: readonly CampaignStatus[] = ['queued', 'sending', 'sent', 'cancelled'];

export interface Campaign {
  id: string;
  workspace_id: string;
  list_id: string;
  /** Sender (an active address on a verified domain) and its display name. */
  from: string;
  from_name: string;
  subject: string;
  html: string;
  /** As given, or made from the HTML when the broadcast gave none. */
  text: string;
  /** Hidden preview text; empty when none. */
  preheader: string;
  status: CampaignStatus;
  /** Active subscribers when it was accepted: what the send quota was debited. */
  recipients: number;
  /**
   * How far the fan-out has read the list: the position (in the list's own order) of the last
   * subscriber given a copy or skipped; 0 before the first. Advanced in the same store write as
   * the copies it covers, so a fan-out resumed after a crash neither skips nor repeats anyone.
   */
  cursor: number;
  /** Copy records made (queued, or bounced at once when suppressed). */
  copies: number;
  /** Subscribers that unsubscribed through this campaign's copies. */
  unsubscribed: number;
  created_at: string;
  updated_at: string;
  /** When the fan-out read the last subscriber (null until then). */
  fanned_out_at: string | null;
}

/** How a campaign's copies stand (from their message records). */
export interface CampaignCounts {
  queued: number;
  sent: number;
  bounced: number;
  /** Copies opened or clicked at least once. */
  opened: number;
  clicked: number;
}

/** A fan-out batch's progress, stored with its copies (AcceptBatch.campaign). */
export interface CampaignProgress {
  id: string;
  /**
   * The position this batch read from: stored only while the campaign is still there, else the
   * batch is refused whole (another daemon's fan-out got there first), so no one gets two copies.
   */
  from: number;
  cursor: number;
  /** Copies made so far, this batch's included. */
  copies: number;
  /** Set on the batch that read the last subscriber. */
  fanned_out_at?: string;
}
