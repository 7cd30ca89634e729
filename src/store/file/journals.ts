// The file store's journals and the aggregates that write to each: the one place a new journaled
// aggregate is named (its line kinds are declared in its own file). `svc store check` reads the
// journals with these checks without opening the store.
import { messageLines } from './messages.js';
import { Replay } from './replay.js';
import { suppressionLines } from './suppressions.js';
import { webhookLines } from './webhooks.js';
import { trackingLines } from './tracking.js';
import { inboxLines } from './inbox-lines.js';
import { subscriberLines } from './lists.js';
import { campaignLines } from './campaigns.js';
import { sequenceLines } from './sequences.js';

export const JOURNALS = [
  /** mail/DAY.jsonl: sends, outcomes, webhook fan-outs and attempts, dropped by the day. */
  { name: 'mail', declare: [messageLines, webhookLines, trackingLines] },
  /** suppressions/all.jsonl: kept for good. */
  { name: 'suppressions', declare: [suppressionLines] },
  /** inbox/DAY.jsonl: what the MX received, with what it changed; dropped by --inbox-retention-days. */
  { name: 'inbox', declare: [inboxLines] },
  /** subscribers/LIST_ID.jsonl: every version of a list's subscribers; dropped with the list. */
  { name: 'subscribers', declare: [subscriberLines] },
  /** campaigns/all.jsonl: broadcasts and their fan-out's progress; kept for good. */
  { name: 'campaigns', declare: [campaignLines] },
  /** sequences/all.jsonl: sequences, their steps and enrolments; kept for good. */
  { name: 'sequences', declare: [sequenceLines] },
] as const;

/** A registry with the journal's line kinds declared and nothing applied (for checks). */
export function checksOf(journal: (typeof JOURNALS)[number]): Replay {
  const r = new Replay();
  for (const declare of journal.declare) declare(r);
  return r;
}
