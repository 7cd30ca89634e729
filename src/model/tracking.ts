// Opens, clicks and replies of one message record (spec.md "Message event"), with what most likely
// caused each (`source`), and what a counted one changes on its record.
import type { Message } from './message.js';

export type TrackKind = 'open' | 'click' | 'reply';

/**
 * `human`: a person; `proxy`: an image proxy fetching as the reader opens (Gmail, Yahoo): counted;
 * `prefetch`: a privacy prefetcher (Apple Mail Privacy Protection) or any open within the prefetch
 * window of sending: not counted; `scanner`: a security gateway fetching every link: not counted.
 */
export const SOURCES = ['human', 'proxy', 'prefetch', 'scanner'] as const;
export type Source = (typeof SOURCES)[number];

/** Whether an event of this source counts (open_count, click_count, engagement, webhooks). */
export const counts = (source: Source) => source === 'human' || source === 'proxy';

export interface MessageEvent {
  id: string;
  workspace_id: string;
  /** The message record (recipient) it belongs to. */
  message_id: string;
  kind: TrackKind;
  /** spec.md: an open that looks like automatic fetching; not counted. True for every uncounted source. */
  prefetch: boolean;
  source: Source;
  /** Why it got its source: the rule that decided (kept as evidence). */
  reason: string;
  url: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
}

/**
 * What an event changes on its record (both stores apply exactly this): a counted open adds one
 * open; a counted click adds one click and, when no open was counted yet, one open (the pixel may
 * be blocked); the first times are kept; the seconds from sending to the first open of any source
 * (a few seconds usually means automatic fetching, spec.md).
 */
export function applyEvent(m: Message, e: MessageEvent): void {
  const counted = counts(e.source);
  if (e.kind === 'open' && m.first_open_after_seconds === null && m.sent_at) {
    m.first_open_after_seconds = Math.max(0, Math.round((Date.parse(e.created_at) - Date.parse(m.sent_at)) / 1000));
  }
  if (!counted) return;
  if (e.kind === 'open' || (e.kind === 'click' && m.open_count === 0)) {
    m.open_count++;
    m.opened_at ??= e.created_at;
  }
  if (e.kind === 'click') {
    m.click_count++;
    m.clicked_at ??= e.created_at;
  }
  if (e.kind === 'reply') {
    m.reply_count++;
    m.replied_at ??= e.created_at;
  }
}
