// What an attempt's per-recipient results mean (spec.md "Message status"): accepted → sent +
// message.sent; a bad mailbox or domain → bounced with the server's reply + message.bounced +
// suppression; a refused message or a failure of ours → bounced, nobody suppressed; a temporary
// failure → tried again with backoff until the retry window is over, then bounced without
// suppression. A failure of our own next hop says nothing of the recipient: it waits for the hop
// to be fixed (or an operator to cancel it) and is bounced only after HOP_LIFE_MS, naming our hop.
import type { Random } from '../clock.js';
import type { Message, OutboundJob } from '../model/message.js';
import type { JobOutcome } from '../store/types.js';
import type { RecipientResult } from './hand-off.js';
import { bouncedEvent, sentEvent } from '../model/event.js';

export interface RetryPolicy {
  /** How long after the first attempt temporary failures are still retried. */
  windowMs: number;
  /** First delay; doubles per attempt, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** How long mail waits on our own next hop before it is bounced: Postfix's maximal_queue_lifetime. */
export const HOP_LIFE_MS = 5 * 86_400_000;

export const DEFAULT_RETRY: RetryPolicy = { windowMs: 4 * 3600_000, baseDelayMs: 30_000, maxDelayMs: 30 * 60_000 };

/** Delay before attempt n+1 (n = attempts so far), with ±20% jitter so retries do not herd. */
export function retryDelay(policy: RetryPolicy, attempts: number, random: Random): number {
  const base = Math.min(policy.baseDelayMs * 2 ** attempts, policy.maxDelayMs);
  const jitter = 0.8 + (random.bytes(2).readUInt16BE(0) / 0xffff) * 0.4;
  return Math.round(base * jitter);
}

export function outcomeOf(
  job: OutboundJob,
  messages: Message[],
  results: RecipientResult[],
  now: Date,
  policy: RetryPolicy,
  random: Random,
): JobOutcome {
  const at = now.toISOString();
  const byAddress = new Map(results.map((r) => [r.address.toLowerCase(), r]));
  const out: JobOutcome = { updates: [], events: [], suppressions: [] };
  /** Deferred recipients with their own last reply. */
  const again: Array<{ id: string; response: string }> = [];
  const age = now.getTime() - Date.parse(job.created_at);
  for (const m of messages) {
    const r = byAddress.get(m.to.toLowerCase()) ?? {
      address: m.to,
      outcome: 'temporary' as const,
      response: 'no result for this recipient',
    };
    const attempts = job.attempts + 1;
    const final = r.outcome === 'permanent' || r.outcome === 'rejected' || r.outcome === 'failed';
    const giveUp = r.outcome === 'hop' ? age >= HOP_LIFE_MS : age >= policy.windowMs;
    if (r.outcome === 'sent') {
      out.updates.push({ id: m.id, status: 'sent', sent_at: at, attempts, next_attempt_at: null });
      out.events.push(sentEvent(random.sortable(), { ...m, status: 'sent' }, at));
    } else if (final || giveUp) {
      const error = final
        ? r.response
        : r.outcome === 'hop'
          ? `svc: our own next hop did not take it for ${Math.round(HOP_LIFE_MS / 86_400_000)} days (${r.class ?? 'hop'}): ${r.response}`
          : `gave up after ${attempts} attempts over ${Math.round(policy.windowMs / 60_000)} minutes: ${r.response}`;
      const bounced = { ...m, status: 'bounced' as const, error };
      out.updates.push({ id: m.id, status: 'bounced', error, bounced_at: at, attempts, next_attempt_at: null });
      out.events.push(bouncedEvent(random.sortable(), bounced, at));
      // Only a bad mailbox or domain is suppressed, with its evidence (bounce-class.ts).
      if (r.outcome === 'permanent') {
        out.suppressions.push({
          workspace_id: m.workspace_id,
          address: m.to.toLowerCase(),
          reason: 'bounce',
          detail: r.response.slice(0, 200),
          created_at: at,
          message_id: m.id,
          ...(r.class ? { class: r.class } : {}),
        });
      }
    } else {
      again.push({ id: m.id, response: r.response });
    }
  }
  if (again.length) {
    const next = new Date(now.getTime() + retryDelay(policy, job.attempts, random)).toISOString();
    out.retry = { message_ids: again.map((a) => a.id), next_attempt_at: next, last_error: again.at(-1)!.response };
    // Each deferred recipient shows its own last reply and when it is tried next.
    for (const a of again)
      out.updates.push({ id: a.id, attempts: job.attempts + 1, last_error: a.response.slice(0, 500), next_attempt_at: next });
  }
  return out;
}
