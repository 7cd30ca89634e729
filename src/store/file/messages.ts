// File store: messages, their contents, the outbound queue, the outbox and the send counts: the
// message aggregate, one line per change in the day-partitioned mail journal (mail/DAY.jsonl). A
// send's records, jobs and events are one `accept` line, so they are written together or not at
// all (a torn last line is cut on recovery); an attempt's outcome is one `outcome` line. The state
// lives in memory, rebuilt from the journal through the replay registry when the store opens.
//
// Long because the message aggregate's four ports (messages, queue, outbox, usage) share its
// in-memory state and replay; the fair pick, leases and engagement are in files of their own.
import { SvcError } from '../../errors.js';
import { FairQueue } from './fair-order.js';
import { ContentCache } from './content-cache.js';
import type { OutboxEvent } from '../../model/event.js';
import type { StoredResponse } from '../../model/idempotency.js';
import type { Message, MessageQuery, OutboundJob, SendContent } from '../../model/message.js';
import type { CampaignProgress } from '../../model/campaign.js';
import type { EnrolmentStep } from '../../model/sequence.js';
import type { SendQuotaRefusal } from '../../model/refusal.js';
import { ATTEMPTS_KEPT, type DeliveryAttempt } from '../../model/attempt.js';
import type { AcceptBatch, PendingJob, JobOutcome, MessageStore, OutboxStore, QueueStore, UsageStore } from '../port/messages.js';
import type { SuppressionStore } from '../port/suppressions.js';
import { dayOf, type Journal, type LineAt } from './journal.js';
import type { Line, Replay } from './replay.js';
import { all, each, shape } from './shapes.js';
import { Leases } from './leases.js';
import { observeEngagement } from './engagement.js';
import { HeaderIndex } from './header-index.js';
import { AttemptIndex } from './line-index.js';
import { Interner, shareAttemptStrings, shareRecordStrings } from './shared-strings.js';

export interface AcceptLine extends Line {
  t: 'accept';
  content: SendContent;
  messages: Message[];
  jobs: OutboundJob[];
  events: OutboxEvent[];
  debit?: AcceptBatch['debit'];
  idempotency?: { key: string; response: StoredResponse; fingerprint?: string | null };
  campaign?: CampaignProgress;
  enrolment?: EnrolmentStep;
  /**
   * Relayed mail: the message (content.raw, base64) is not in the record but on the journal line
   * just before it, `raw_length` characters long, the way the inbox keeps received mail: the record
   * stays small to write, to read at every start and to list as a Sent copy, and the message is read
   * only when the send is handed off or its Sent copy is opened.
   */
  raw_length?: number;
}

interface OutcomeLine extends Line {
  t: 'outcome';
  job_id: string;
  outcome: JobOutcome;
}

const messageShape = shape({ id: 's', workspace_id: 's', content_id: 's', to: 's', status: 's' });
const jobShape = shape({ id: 's', content_id: 's', message_ids: 'a', next_attempt_at: 's' });
export const eventShape = shape({ id: 's', workspace_id: 's', event: 's', message_id: 's', payload: 'o' });

/** The line kinds of this aggregate in the mail journal. */
export function messageLines(r: Replay): void {
  r.kind(
    'accept',
    all(
      shape({ at: 's', content: 'o', messages: 'a', jobs: 'a', events: 'a' }),
      (v) => {
        const c = shape({ id: 's', workspace_id: 's', to: 'a', cc: 'a', notes: 'a' })((v as { content: unknown }).content);
        return c && `content: ${c}`;
      },
      each('messages', messageShape),
      each('jobs', jobShape),
      each('events', eventShape),
    ),
  );
  r.kind(
    'outcome',
    all(shape({ at: 's', job_id: 's', outcome: 'o' }), (v) =>
      all(shape({ updates: 'a', events: 'a' }), each('events', eventShape))((v as { outcome: unknown }).outcome),
    ),
  );
}

// Copies in, copies out: nobody outside can change the in-memory state. Hand-written because these
// records are on the hot path and structuredClone costs more than the rest of a store call.
const copyMessage = (m: Message): Message => ({
  ...m,
  notes: [...(m.notes ?? [])],
  ...(m.subscriber ? { subscriber: { ...m.subscriber } } : {}),
});
const copyContent = (c: SendContent): SendContent => ({
  ...c,
  to: c.to.map((p) => ({ ...p })),
  cc: c.cc.map((p) => ({ ...p })),
  notes: [...c.notes],
  ...(c.attachments ? { attachments: c.attachments.map((a) => ({ ...a, ...(a.params ? { params: { ...a.params } } : {}) })) } : {}),
});
const copyJob = (j: OutboundJob): OutboundJob => ({ ...j, message_ids: [...j.message_ids] });
export const copyEvent = (e: OutboxEvent): OutboxEvent => ({ ...e, payload: { ...e.payload } });

export interface MessageGroups {
  messages: MessageStore;
  queue: QueueStore;
  outbox: OutboxStore;
  usage: UsageStore;
}

/** What the tracking aggregate reads of this one (tracking.ts). */
export interface MessageLookup {
  byToken(token: string): Message | undefined;
  has(id: string): boolean;
  /** Called with the ids of records a purge removed, of their sends' contents and the days they were stored (what belongs to them goes too). */
  onPurge(fn: (ids: string[], contentIds: string[], days: string[]) => void): void;
  /** A campaign's copy records (live: not to be changed). */
  copiesOf(campaignId: string): Iterable<Message>;
  /** Reserves a debit in the send quota's counts, or says which window it would go over. */
  reserve(workspaceId: string, debit: NonNullable<AcceptBatch['debit']>): SendQuotaRefusal | { release(): void };
  /** Counts a debit stored elsewhere (a campaign's). */
  count(workspaceId: string, debit: NonNullable<AcceptBatch['debit']>): void;
  /**
   * Drops a deleted workspace's records, jobs and counts from memory (its lines leave the journal
   * when the store next opens: workspace-prune.ts); how many records went.
   */
  forgetWorkspace(workspaceId: string): number;
  /** Drops a deleted workspace's queued jobs from memory: its mail is not handed off (at its deletion, and again as the store opens until its purge). */
  dropJobs(workspaceId: string): void;
}

/**
 * The message aggregate on the mail journal. `suppressed` answers from the suppression aggregate
 * (a send checks its recipients in the same call); an outcome's suppressions are added through it.
 */
export function fileMessages(
  mail: Journal<Line>,
  replay: Replay,
  inbound: Replay,
  suppressions: { has(ws: string, address: string): boolean; store: SuppressionStore },
  now: () => Date,
): MessageGroups & { lookup: MessageLookup } {
  const byId = new Map<string, Message>();
  /** Records by their own token (tracking finds them by it). */
  const byToken = new Map<string, Message>();
  /** Records by workspace and Message-ID header (a send's records share one): replies and bounce reports find them by it. */
  const byHeader = new HeaderIndex();
  /** Repeated strings of attempts (replies, hosts, times) and their signatures, kept once (shared-strings.ts). */
  const attemptStrings = new Interner();
  const signatures = new Interner<NonNullable<DeliveryAttempt['dkim']>>();
  const purgeListeners: Array<(ids: string[], contentIds: string[], days: string[]) => void> = [];
  /** message id → where its newest hand-off attempts lie (line-index.ts). */
  const transcripts = new AttemptIndex();
  /** Per workspace, in the order created: lists read it backwards (newest first). */
  const byWorkspace = new Map<string, Message[]>();
  /** A campaign's copies. */
  const byCampaign = new Map<string, Message[]>();
  /**
   * Contents of sends with unfinished jobs (what delivery needs), and how many jobs need each. A
   * content is kept as where its accept line lies and read back when a job is handed off, so memory
   * does not grow with the queue (a burst of a million queued 10 KB sends would not fit).
   */
  const contents = new Map<string, LineAt>();
  const contentUsers = new Map<string, number>();
  const recentContents = new ContentCache();
  const jobs = new FairQueue<OutboundJob>();
  const leases = new Leases();
  /** Events not yet dispatched to webhook endpoints, oldest first. */
  const outboxed = new Map<string, OutboxEvent>();
  /** workspace → quota window → sends counted (rebuilt from the debits in accept lines). */
  const usage = new Map<string, Map<string, number>>();

  const count = (workspaceId: string, debit: NonNullable<AcceptBatch['debit']>, sign: 1 | -1): void => {
    let ws = usage.get(workspaceId);
    if (!ws) usage.set(workspaceId, (ws = new Map()));
    for (const w of debit.windows) ws.set(w.key, (ws.get(w.key) ?? 0) + sign * debit.n);
  };
  /** Checked and reserved synchronously, so concurrent sends cannot both fit; the caller releases it once its line is applied (or failed). */
  const reserve = (workspaceId: string, debit: NonNullable<AcceptBatch['debit']>): SendQuotaRefusal | { release(): void } => {
    const used = usage.get(workspaceId);
    for (const w of debit.windows) {
      const n = used?.get(w.key) ?? 0;
      if (w.limit !== null && n + debit.n > w.limit) return { refused: 'send_quota', window: w, used: n };
    }
    count(workspaceId, debit, 1);
    return { release: () => count(workspaceId, debit, -1) };
  };

  messageLines(replay);
  replay.on<AcceptLine>('accept', (line, at) => {
    if (line.jobs.length && at) {
      contents.set(line.content.id, at);
      contentUsers.set(line.content.id, line.jobs.length);
    }
    shareRecordStrings(line.content, line.messages);
    for (const m of line.messages) {
      byId.set(m.id, m);
      if (m.token) byToken.set(m.token, m);
      byHeader.add(m);
      let list = byWorkspace.get(m.workspace_id);
      if (!list) byWorkspace.set(m.workspace_id, (list = []));
      list.push(m);
      if (m.campaign_id) {
        const copies = byCampaign.get(m.campaign_id);
        if (copies) copies.push(m);
        else byCampaign.set(m.campaign_id, [m]);
      }
    }
    for (const j of line.jobs) {
      // Its records' id strings, not copies of them.
      j.message_ids = j.message_ids.map((id) => byId.get(id)?.id ?? id);
      jobs.set(j);
    }
    for (const e of line.events) outboxed.set(e.id, e);
    if (line.debit) count(line.content.workspace_id, line.debit, 1);
  });
  replay.on<OutcomeLine>('outcome', (line, at) => {
    const { outcome } = line;
    for (const a of outcome.transcript ?? []) {
      const record = byId.get(a.message_id);
      if (record) transcripts.add(record.id, at ?? shareAttemptStrings(a, record, attemptStrings, signatures));
    }
    for (const u of outcome.updates) {
      const m = byId.get(u.id);
      if (!m) continue;
      // Not its id (the record keeps the string its indexes hold); a job's times and errors once.
      for (const [k, v] of Object.entries(u))
        if (k !== 'id') (m as unknown as Record<string, unknown>)[k] = typeof v === 'string' ? attemptStrings.get(v, v) : v;
    }
    for (const e of outcome.events) outboxed.set(e.id, e);
    const job = jobs.get(line.job_id);
    leases.release(line.job_id);
    if (!job) return;
    if (outcome.retry) {
      job.message_ids = outcome.retry.message_ids;
      job.next_attempt_at = outcome.retry.next_attempt_at;
      job.last_error = outcome.retry.last_error;
      job.attempts = outcome.retry.attempts ?? job.attempts + 1;
      if (outcome.retry.held) job.held = true;
      else delete job.held;
      return;
    }
    jobs.delete(job.id);
    const users = (contentUsers.get(job.content_id) ?? 1) - 1;
    if (users > 0) contentUsers.set(job.content_id, users);
    else {
      contentUsers.delete(job.content_id);
      contents.delete(job.content_id);
      recentContents.forget(job.content_id);
    }
  });
  observeEngagement(replay, inbound, byId, outboxed);
  // Dispatching events to endpoints is the webhook aggregate's line; the outbox lets them go.
  // Days are named by the time each line carries, which is not always one clock (a test's moved
  // clock, the wall clock): a dispatch mark may be read before its event, so marks are applied
  // again once everything is read.
  const dispatched = new Set<string>();
  let replaying = true;
  replay.on<Line & { event_ids: string[] }>('wh_fanout', (line) => {
    for (const id of line.event_ids) {
      outboxed.delete(id);
      if (replaying) dispatched.add(id);
    }
  });
  replay.afterReplay(() => {
    for (const id of dispatched) outboxed.delete(id);
    dispatched.clear();
    replaying = false;
  });

  /** Durable first, then visible: a worker never hands off what a crash could take back. */
  const write = async (line: Line): Promise<void> => {
    await mail.append(dayOf(line.at), [line]);
    replay.apply(line);
  };

  /** A send's content with its relayed message (AcceptLine.raw_length) read back; null when its day was dropped. */
  const withRaw = async (line: AcceptLine, at: LineAt): Promise<SendContent | null> => {
    if (line.raw_length === undefined) return line.content;
    const raw = await mail.attachmentAt(at, line.raw_length);
    return raw === null ? null : { ...line.content, raw };
  };

  const messages: MessageStore = {
    accept: async (batch) => {
      const ws = batch.content.workspace_id;
      const listed = batch.unsuppressed?.filter((a) => suppressions.has(ws, a)) ?? [];
      if (listed.length) return { refused: 'suppressed', addresses: listed };
      const { raw, ...content } = batch.content;
      const line: AcceptLine = {
        t: 'accept',
        at: batch.content.created_at,
        content: copyContent(content),
        ...(raw !== undefined ? { raw_length: raw.length } : {}),
        messages: batch.messages.map(copyMessage),
        jobs: batch.jobs.map(copyJob),
        events: batch.events.map(copyEvent),
        ...(batch.debit ? { debit: { n: batch.debit.n, windows: batch.debit.windows.map((w) => ({ ...w })) } } : {}),
        ...(batch.idempotency
          ? {
              idempotency: {
                key: batch.idempotency.key,
                response: batch.idempotency.response,
                fingerprint: batch.idempotency.fingerprint ?? null,
              },
            }
          : {}),
        ...(batch.campaign ? { campaign: { ...batch.campaign } } : {}),
        ...(batch.enrolment ? { enrolment: { ...batch.enrolment } } : {}),
      };
      const held = line.debit ? reserve(ws, line.debit) : null;
      if (held && 'refused' in held) return held;
      let at: LineAt;
      try {
        at = await mail.appendLocated(dayOf(line.at), line, raw);
      } finally {
        // The reservation ends either way: applying the line counts it for good.
        held?.release();
      }
      replay.apply(line, at);
      return null;
    },
    get: async (workspaceId, id) => {
      const m = byId.get(id);
      return m && m.workspace_id === workspaceId ? copyMessage(m) : null;
    },
    idsWithPrefix: async (workspaceId, prefix, limit) => {
      const ids: string[] = [];
      for (const m of byWorkspace.get(workspaceId) ?? []) {
        if (m.id.startsWith(prefix)) ids.push(m.id);
        if (ids.length >= limit) break;
      }
      return ids;
    },
    list: async (workspaceId, q: MessageQuery) => {
      const list = byWorkspace.get(workspaceId) ?? [];
      const needle = q.recipient?.toLowerCase();
      const sender = q.from?.toLowerCase();
      const data: Message[] = [];
      let total = 0;
      for (let i = list.length - 1; i >= 0; i--) {
        const m = list[i]!;
        if (q.status && m.status !== q.status) continue;
        if (needle && !m.to.toLowerCase().includes(needle)) continue;
        if (q.messageId && m.message_id !== q.messageId) continue;
        if (sender && !m.from.toLowerCase().includes(sender)) continue;
        if (q.since && Date.parse(m.created_at) < Date.parse(q.since)) continue;
        if (q.until && Date.parse(m.created_at) >= Date.parse(q.until)) continue;
        if (total >= q.offset && data.length < q.limit) data.push(copyMessage(m));
        total++;
      }
      return { data, total };
    },
    byIds: async (ids) => ids.flatMap((id) => (byId.has(id) ? [copyMessage(byId.get(id)!)] : [])),
    byHeaderId: async (workspaceId, messageId) => byHeader.get(workspaceId, messageId).map(copyMessage),
    content: async (id) => {
      const at = contents.get(id);
      if (!at) return null;
      // Read lately by another job of the same send, or read now (content-cache.ts); a copy each.
      return recentContents.get(
        id,
        async () => {
          const line = (await mail.readAt(at)) as AcceptLine | null;
          return line?.t === 'accept' && line.content.id === id ? withRaw(line, at) : null;
        },
        copyContent,
      );
    },
    attempts: async (workspaceId, messageId) =>
      (await transcripts.read(messageId, (at) => mail.readAt(at) as Promise<OutcomeLine | null>))
        .filter((a) => a.workspace_id === workspaceId)
        .map((a) => ({ ...a, dkim: a.dkim && { ...a.dkim } })),
    purge: async (before) => {
      const cutoff = dayOf(before);
      // A day of this month stays on disk (its sends count in the monthly quota when the store is
      // read again); its messages leave the log all the same.
      const thisMonth = now().toISOString().slice(0, 7);
      let removed = 0;
      const gone: string[] = [];
      const contentsGone: string[] = [];
      const days: string[] = [];
      for (const day of await mail.partitions()) {
        if (day >= cutoff) break;
        days.push(day);
        // Streamed: a day is never held whole.
        await mail.each(day, (l) => {
          if (l.t !== 'accept') return;
          contentsGone.push((l as AcceptLine).content.id);
          for (const m of (l as AcceptLine).messages) {
            if (byId.delete(m.id)) {
              removed++;
              gone.push(m.id);
            }
            transcripts.delete(m.id);
            if (m.token) byToken.delete(m.token);
            byHeader.delete(m.workspace_id, m.message_id);
          }
        });
        if (day.slice(0, 7) < thisMonth) await mail.drop(day);
      }
      for (const [ws, list] of byWorkspace)
        byWorkspace.set(
          ws,
          list.filter((m) => byId.has(m.id)),
        );
      for (const [c, list] of byCampaign) {
        const kept = list.filter((m) => byId.has(m.id));
        if (kept.length) byCampaign.set(c, kept);
        else byCampaign.delete(c);
      }
      for (const fn of purgeListeners) fn(gone, contentsGone, days);
      return removed;
    },
  };

  const queue: QueueStore = {
    claim: async (owner, nowIso, leaseMs, max, skipDomains = [], maxBulk = max) => {
      const t = Date.parse(nowIso);
      const skip = new Set(skipDomains);
      // A job never tried is due at once (QueueStore.claim); the pick is fair (fair-order.ts).
      const due = (j: OutboundJob) =>
        !j.held && (j.attempts === 0 || Date.parse(j.next_attempt_at) <= t) && !skip.has(j.domain) && leases.free(j.id, t);
      return jobs.pick(max, maxBulk, due).map((j) => {
        leases.take(j.id, owner, t, leaseMs);
        return copyJob(j);
      });
    },
    renew: async (owner, jobIds, nowIso, leaseMs) => leases.renew(owner, jobIds, Date.parse(nowIso), leaseMs),
    complete: async (jobId, outcome) => {
      if (!jobs.has(jobId)) throw new SvcError('not_found', `job ${jobId} is not pending`);
      // Suppressions go to their own journal (they outlive the day), and first: a crash before the
      // outcome line leaves the job to be tried again, which adds them again, harmlessly.
      for (const s of outcome.suppressions) await suppressions.store.add(s);
      const copied: JobOutcome = {
        updates: outcome.updates.map((u) => ({ ...u })),
        events: outcome.events.map(copyEvent),
        suppressions: [],
        ...(outcome.retry ? { retry: { ...outcome.retry, message_ids: [...outcome.retry.message_ids] } } : {}),
        ...(outcome.transcript?.length ? { transcript: outcome.transcript.map((a) => ({ ...a, dkim: a.dkim && { ...a.dkim } })) } : {}),
      };
      const line: OutcomeLine = { t: 'outcome', at: now().toISOString(), job_id: jobId, outcome: copied };
      // Located: the records' attempts are read back from this line (line-index.ts).
      replay.apply(line, await mail.appendLocated(dayOf(line.at), line));
    },
    depth: async () => jobs.size,
    pending: async (q, nowIso) => {
      const t = Date.parse(nowIso);
      const needle = q.recipient?.toLowerCase();
      const out: PendingJob[] = [];
      for (const j of jobs.values()) {
        if (q.workspaceId && j.workspace_id !== q.workspaceId) continue;
        if (q.domain && j.domain !== q.domain) continue;
        if (q.messageId && !j.message_ids.includes(q.messageId)) continue;
        if (q.createdBefore && j.created_at >= q.createdBefore) continue;
        if (needle && !j.message_ids.some((id) => byId.get(id)?.to.toLowerCase().includes(needle))) continue;
        out.push({ ...copyJob(j), leased: !leases.free(j.id, t) });
      }
      out.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
      return out.slice(0, q.limit);
    },
    take: async (owner, jobIds, nowIso, leaseMs) => {
      const t = Date.parse(nowIso);
      return jobIds.flatMap((id) => {
        const j = jobs.get(id);
        if (!j || !leases.free(id, t)) return [];
        leases.take(id, owner, t, leaseMs);
        return [copyJob(j)];
      });
    },
  };

  const outbox: OutboxStore = {
    pending: async (limit) => {
      const out: OutboxEvent[] = [];
      for (const e of outboxed.values()) {
        if (out.length >= limit) break;
        out.push(copyEvent(e));
      }
      return out;
    },
  };

  const usageStore: UsageStore = {
    get: async (workspaceId, keys) => Object.fromEntries(keys.map((k) => [k, usage.get(workspaceId)?.get(k) ?? 0])),
  };

  const lookup: MessageLookup = {
    byToken: (t) => byToken.get(t),
    has: (id) => byId.has(id),
    onPurge: (fn) => void purgeListeners.push(fn),
    dropJobs: (workspaceId) => {
      // A hand-off in flight finds its job gone.
      for (const j of jobs.ofWorkspace(workspaceId)) {
        jobs.delete(j.id);
        leases.release(j.id);
        contentUsers.delete(j.content_id);
        contents.delete(j.content_id);
        recentContents.forget(j.content_id);
      }
    },
    forgetWorkspace: (workspaceId) => {
      const gone = byWorkspace.get(workspaceId) ?? [];
      byWorkspace.delete(workspaceId);
      const contentsGone = new Set<string>();
      for (const m of gone) {
        byId.delete(m.id);
        if (m.token) byToken.delete(m.token);
        byHeader.delete(m.workspace_id, m.message_id);
        transcripts.delete(m.id);
        contentsGone.add(m.content_id);
      }
      for (const [c, list] of byCampaign) if (list[0]?.workspace_id === workspaceId) byCampaign.delete(c);
      lookup.dropJobs(workspaceId);
      for (const [id, e] of outboxed) if (e.workspace_id === workspaceId) outboxed.delete(id);
      usage.delete(workspaceId);
      for (const fn of purgeListeners)
        fn(
          gone.map((m) => m.id),
          [...contentsGone],
          [],
        );
      return gone.length;
    },
    copiesOf: (id) => byCampaign.get(id) ?? [],
    reserve,
    count: (ws, debit) => count(ws, debit, 1),
  };
  return { messages, queue, outbox, usage: usageStore, lookup };
}
