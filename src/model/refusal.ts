// The refusals a store gives as answers of their own, not as errors: a write that the rules of the
// workspace forbid (a count at its limit, a send over its quota, a suppressed recipient) changes
// nothing and says why, in fields the service turns into the spec's body. Being plain data, they
// cross the admin socket unchanged.
import type { CountKind, QuotaWindow } from './quota.js';

/** A domain or address over the plan's count (spec 402 quota_exceeded). */
export interface CountLimitRefusal {
  refused: 'count_limit';
  kind: CountKind;
  limit: number;
  used: number;
}

/** A send that would go over a quota window (spec 429 quota_exceeded). */
export interface SendQuotaRefusal {
  refused: 'send_quota';
  window: QuotaWindow;
  used: number;
}

/** A send naming recipients on the suppression list (the pipeline marks them and sends again). */
export interface SuppressedRefusal {
  refused: 'suppressed';
  addresses: string[];
}

/** A broadcast's fan-out batch whose campaign had moved past the position it read from. */
export interface CampaignMovedRefusal {
  refused: 'campaign_moved';
}

/** A sequence step's send whose enrolment had moved on (another daemon sent it) or stopped. */
export interface EnrolmentMovedRefusal {
  refused: 'enrolment_moved';
}

export type AcceptRefusal = SendQuotaRefusal | SuppressedRefusal | CampaignMovedRefusal | EnrolmentMovedRefusal;

/** A creation answers the record, or why not. */
export type Created<T> = T | CountLimitRefusal;
