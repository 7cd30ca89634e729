// The operator's view of the outbound queue (`svc queue`): what is queued or deferred,
// one row per message, with its attempts, last error and next attempt; a retry now (after an
// outage: `retry --all --domain D`); a cancel, which bounces the message with a reason that says
// so and suppresses nobody. Both take the job's lease first, so no hand-off holds it meanwhile;
// a job a hand-off holds right now is left alone and counted as busy.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Message, OutboundJob } from '../model/message.js';
import type { PendingJob, QueueQuery } from '../store/port/messages.js';
import { bouncedEvent } from '../model/event.js';

/** The owner name of an operator's lease (shown nowhere but the store). */
const OPERATOR = 'svc queue (operator)';
const OPERATOR_LEASE_MS = 60_000;
/** Jobs one list or retry reads at most. */
export const QUEUE_LIST_MAX = 10_000;

export interface QueueRow {
  /** The message's id (`svc messages show`, `explain`). */
  id: string;
  job_id: string;
  workspace_id: string;
  to: string;
  domain: string;
  from: string;
  subject: string;
  /** queued: never tried; deferred: tried and due again; sending: a hand-off holds it now; held: kept back by the operator (a restored backup) until a retry. */
  state: 'queued' | 'deferred' | 'sending' | 'held';
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  age_seconds: number;
}

export interface QueueFilter {
  workspaceId?: string;
  domain?: string;
  recipient?: string;
  /** Only mail queued at least this long ago. */
  olderThanSeconds?: number;
  limit?: number;
}

export function queueAdmin(deps: DepsOf<'queue' | 'messages'>) {
  const { store, clock, random, bus } = deps;
  const now = () => clock.now();

  const query = (f: QueueFilter & { messageId?: string }): QueueQuery => ({
    ...(f.workspaceId ? { workspaceId: f.workspaceId } : {}),
    ...(f.domain ? { domain: f.domain.toLowerCase() } : {}),
    ...(f.recipient ? { recipient: f.recipient } : {}),
    ...(f.messageId ? { messageId: f.messageId } : {}),
    ...(f.olderThanSeconds !== undefined ? { createdBefore: new Date(now().getTime() - f.olderThanSeconds * 1000).toISOString() } : {}),
    limit: Math.min(f.limit ?? QUEUE_LIST_MAX, QUEUE_LIST_MAX),
  });

  const rowsOf = async (jobs: PendingJob[], recipient?: string): Promise<QueueRow[]> => {
    const records = new Map((await store.messages.byIds(jobs.flatMap((j) => j.message_ids))).map((m) => [m.id, m]));
    const t = now().getTime();
    const needle = recipient?.toLowerCase();
    return jobs.flatMap((j) =>
      j.message_ids.flatMap((id) => {
        const m = records.get(id);
        if (!m || (needle && !m.to.toLowerCase().includes(needle))) return [];
        return [
          {
            id: m.id,
            job_id: j.id,
            workspace_id: j.workspace_id,
            to: m.to,
            domain: j.domain,
            from: m.from,
            subject: m.subject,
            state: j.leased
              ? ('sending' as const)
              : j.held
                ? ('held' as const)
                : j.attempts === 0
                  ? ('queued' as const)
                  : ('deferred' as const),
            attempts: j.attempts,
            last_error: j.last_error,
            next_attempt_at: j.attempts === 0 ? null : j.next_attempt_at,
            created_at: j.created_at,
            age_seconds: Math.max(0, Math.round((t - Date.parse(j.created_at)) / 1000)),
          },
        ];
      }),
    );
  };

  /** The job holding a queued message, or not_found naming why. */
  const jobOf = async (messageId: string, workspaceId?: string): Promise<PendingJob> => {
    const [job] = await store.queue.pending(query({ messageId, ...(workspaceId ? { workspaceId } : {}), limit: 1 }), now().toISOString());
    if (job) return job;
    const [m] = await store.messages.byIds([messageId]);
    if (!m || (workspaceId && m.workspace_id !== workspaceId)) throw new SvcError('not_found', `message ${messageId} not found`);
    throw new SvcError('not_found', `message ${messageId} is not queued: it is ${m.status}`);
  };

  /** Leases the jobs for the operator; those a hand-off holds now are left out. */
  const take = (jobs: OutboundJob[]) =>
    store.queue.take(
      OPERATOR,
      jobs.map((j) => j.id),
      now().toISOString(),
      OPERATOR_LEASE_MS,
    );

  return {
    async list(f: QueueFilter): Promise<QueueRow[]> {
      return rowsOf(await store.queue.pending(query(f), now().toISOString()), f.recipient);
    },

    async show(messageId: string, workspaceId?: string): Promise<QueueRow> {
      const job = await jobOf(messageId, workspaceId);
      return (await rowsOf([job])).find((r) => r.id === messageId)!;
    },

    /**
     * Makes the jobs of these messages (or of every queued message the filter matches) due now,
     * held ones let go; their attempts stay as they are. Busy: held by a hand-off right now.
     */
    async retry(target: { messageId: string; workspaceId?: string } | QueueFilter): Promise<{ retried: number; busy: number }> {
      const jobs =
        'messageId' in target
          ? [await jobOf(target.messageId, target.workspaceId)]
          : await store.queue.pending(query(target), now().toISOString());
      const taken = await take(jobs);
      const at = now().toISOString();
      let retried = 0;
      for (const j of taken) {
        await store.queue.complete(j.id, {
          updates: j.message_ids.map((id) => ({ id, attempts: j.attempts, next_attempt_at: at })),
          events: [],
          suppressions: [],
          retry: { message_ids: j.message_ids, next_attempt_at: at, last_error: j.last_error ?? '', attempts: j.attempts },
        });
        retried += j.message_ids.length;
      }
      if (taken.length) bus?.publish('retried');
      const busy = jobs.filter((j) => !taken.some((x) => x.id === j.id)).reduce((n, j) => n + j.message_ids.length, 0);
      return { retried, busy };
    },

    /**
     * Holds every queued message the filter matches (a restored backup's queue): no hand-off takes
     * them until a retry lets them go. How many were held, and how many a hand-off held (busy).
     */
    async hold(f: QueueFilter = {}): Promise<{ held: number; busy: number }> {
      const jobs = await store.queue.pending(query(f), now().toISOString());
      const taken = await take(jobs);
      for (const j of taken) {
        await store.queue.complete(j.id, {
          updates: [],
          events: [],
          suppressions: [],
          retry: {
            message_ids: j.message_ids,
            next_attempt_at: j.next_attempt_at,
            last_error: j.last_error ?? '',
            attempts: j.attempts,
            held: true,
          },
        });
      }
      const count = (js: OutboundJob[]) => js.reduce((n, j) => n + j.message_ids.length, 0);
      return { held: count(taken), busy: count(jobs) - count(taken) };
    },

    /**
     * Bounces one queued message now with a reason that says an operator cancelled it: a
     * message.bounced event like any bounce, and no suppression (the address did nothing wrong).
     */
    async cancel(messageId: string, opts: { workspaceId?: string; reason?: string } = {}): Promise<Message> {
      const job = await jobOf(messageId, opts.workspaceId);
      const [taken] = await take([job]);
      if (!taken) throw new SvcError('conflict', `message ${messageId} is being handed off right now; try again in a moment`);
      const [m] = await store.messages.byIds([messageId]);
      const at = now().toISOString();
      const error = `svc: cancelled by the operator${opts.reason ? `: ${opts.reason.replace(/[\r\n]+/g, ' ').slice(0, 200)}` : ''}`;
      const bounced = { ...m!, status: 'bounced' as const, error, bounced_at: at, next_attempt_at: null };
      const rest = taken.message_ids.filter((id) => id !== messageId);
      await store.queue.complete(taken.id, {
        updates: [{ id: messageId, status: 'bounced', error, bounced_at: at, attempts: taken.attempts, next_attempt_at: null }],
        events: [bouncedEvent(random.sortable(), bounced, at)],
        suppressions: [],
        ...(rest.length
          ? {
              retry: {
                message_ids: rest,
                next_attempt_at: taken.next_attempt_at,
                last_error: taken.last_error ?? '',
                attempts: taken.attempts,
                ...(taken.held ? { held: true } : {}),
              },
            }
          : {}),
      });
      bus?.publish('outboxed');
      return bounced;
    },
  };
}

export type QueueAdmin = ReturnType<typeof queueAdmin>;
