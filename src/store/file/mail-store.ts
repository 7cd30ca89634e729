// The file store's high-volume side: messages, their contents, the outbound queue, the webhook
// outbox and suppressions. Every change is one line in a day-partitioned journal (mail/DAY.jsonl),
// so a send's records, jobs and events are written together or not at all (a torn last line is
// cut on recovery), an append never rewrites what is there, and old days are dropped whole. The
// current state lives in memory, rebuilt from the journal when the store opens.
import { join } from 'node:path';
import { SvcError } from '../../errors.js';
import type {
  AcceptBatch,
  IdempotencyClaim,
  IdempotencyStore,
  RateLimitStore,
  StoredResponse,
  UsageStore,
  JobOutcome,
  Message,
  MessageQuery,
  MessageStore,
  OutboundJob,
  OutboxEvent,
  OutboxStore,
  QueueStore,
  SendContent,
  Suppression,
  SuppressionStore,
} from '../types.js';
import { dayOf, Journal, type BadLine, type LineAt } from './journal.js';
import { setAside } from './check.js';
import { mailLine, suppressionLine } from './shapes.js';
import { isWebhookLine, WebhookState, type WebhookLine } from './webhook-state.js';
import { sendQuotaReached } from '../../workspaces/send-quota.js';
import { suppressedRecipients } from '../../suppressions/refusal.js';

type Line =
  | {
      t: 'accept';
      at: string;
      content: SendContent;
      messages: Message[];
      jobs: OutboundJob[];
      events: OutboxEvent[];
      debit?: AcceptBatch['debit'];
      idempotency?: { key: string; response: StoredResponse; fingerprint?: string | null };
    }
  | { t: 'outcome'; at: string; job_id: string; outcome: JobOutcome }
  | WebhookLine;

type SuppressionLine = { t: 'add'; s: Suppression } | { t: 'remove'; workspace_id: string; address: string };

interface Lease {
  owner: string;
  until: number;
}

// Copies in, copies out: nobody outside can change the in-memory state. Hand-written because these
// records are on the hot path and structuredClone costs more than the rest of a store call.
const copyMessage = (m: Message): Message => ({ ...m, notes: [...(m.notes ?? [])] });
const copyContent = (c: SendContent): SendContent => ({
  ...c,
  to: c.to.map((p) => ({ ...p })),
  cc: c.cc.map((p) => ({ ...p })),
  notes: [...c.notes],
  ...(c.attachments ? { attachments: c.attachments.map((a) => ({ ...a })) } : {}),
});
const copyJob = (j: OutboundJob): OutboundJob => ({ ...j, message_ids: [...j.message_ids] });
const copyEvent = (e: OutboxEvent): OutboxEvent => ({ ...e, payload: { ...e.payload } });
const copySuppression = (s: Suppression): Suppression => ({ ...s });
const SUPPRESSIONS = 'all';

/** Milliseconds until enough of the oldest seconds leave the window for one more request. */
function retryAfter(buckets: Map<number, number>, total: number, limit: number, sec: number, span: number): number {
  let left = total;
  for (const s of [...buckets.keys()].sort((a, b) => a - b)) {
    left -= buckets.get(s)!;
    if (left < limit) return (s + span - sec) * 1000;
  }
  return span * 1000;
}

export class FileMailStore {
  #messages = new Map<string, Message>();
  /** Per workspace, in the order created: lists read it backwards (newest first). */
  #byWorkspace = new Map<string, Message[]>();
  /**
   * Contents of sends with unfinished jobs (what delivery needs), and how many jobs need each. A
   * content is kept as where its accept line lies and read back when a job is handed off, so memory
   * does not grow with the queue (a burst of a million queued 10 KB sends would not fit).
   */
  #contents = new Map<string, LineAt>();
  #contentUsers = new Map<string, number>();
  #jobs = new Map<string, OutboundJob>();
  #leases = new Map<string, Lease>();
  /** Events not yet dispatched to webhook endpoints, oldest first. */
  #outbox = new Map<string, OutboxEvent>();
  readonly webhooks = new WebhookState();
  #suppressions = new Map<string, Map<string, Suppression>>();
  /** workspace → quota window → sends counted (rebuilt from the debits in accept lines). */
  #usage = new Map<string, Map<string, number>>();
  /** workspace\0key → claim. Running claims live in memory only: a crash loses them, and nothing was sent. */
  #idempotency = new Map<string, { state: 'running' | 'completed'; token: string; at: number; response: StoredResponse | null; fingerprint: string | null }>();
  /** API key → requests per second (epoch second → count) within the window: O(window) per hit, whatever the limit. */
  #hits = new Map<string, Map<number, number>>();

  private constructor(
    private readonly mail: Journal<Line>,
    private readonly suppressionLog: Journal<SuppressionLine>,
    private readonly now: () => Date,
  ) {}

  static async open(dir: string, now: () => Date = () => new Date()): Promise<FileMailStore> {
    const store = new FileMailStore(
      await Journal.open<Line>(join(dir, 'mail'), { validate: mailLine }),
      await Journal.open<SuppressionLine>(join(dir, 'suppressions'), { validate: suppressionLine }),
      now,
    );
    for (const l of await store.suppressionLog.read(SUPPRESSIONS)) store.#applySuppression(l);
    // Days are named by the time each line carries, which is not always one clock (a test's moved
    // clock, the wall clock): an event's dispatch mark may be read before the event, so marks are
    // applied again once everything is read.
    const dispatched = new Set<string>();
    const dropped = new Set<string>();
    for (const day of await store.mail.partitions()) {
      for (const { record: line, at } of await store.mail.readLocated(day)) {
        if (line.t === 'wh_fanout') for (const id of line.event_ids) dispatched.add(id);
        if (line.t === 'wh_drop') dropped.add(line.endpoint_id);
        store.#apply(line, at);
      }
    }
    for (const id of dispatched) store.#outbox.delete(id);
    for (const id of dropped) store.webhooks.apply({ t: 'wh_drop', at: '', endpoint_id: id });
    // Unreadable lines were skipped; a copy of each goes aside before anything else is written.
    await setAside(dir, 'mail', store.mail.problems);
    await setAside(dir, 'suppressions', store.suppressionLog.problems);
    return store;
  }

  get problems(): BadLine[] {
    return [...this.mail.problems, ...this.suppressionLog.problems];
  }

  /** `at`: where the line lies in the journal (accept lines need it for their content). */
  #apply(line: Line, at?: LineAt): void {
    if (isWebhookLine(line)) {
      if (line.t === 'wh_fanout') for (const id of line.event_ids) this.#outbox.delete(id);
      this.webhooks.apply(line);
      return;
    }
    if (line.t === 'accept') {
      if (line.jobs.length && at) {
        this.#contents.set(line.content.id, at);
        this.#contentUsers.set(line.content.id, line.jobs.length);
      }
      for (const m of line.messages) {
        this.#messages.set(m.id, m);
        let list = this.#byWorkspace.get(m.workspace_id);
        if (!list) this.#byWorkspace.set(m.workspace_id, (list = []));
        list.push(m);
      }
      for (const j of line.jobs) this.#jobs.set(j.id, j);
      for (const e of line.events) this.#outbox.set(e.id, e);
      if (line.debit) this.#count(line.content.workspace_id, line.debit, 1);
      if (line.idempotency) {
        this.#idempotency.set(`${line.content.workspace_id}\0${line.idempotency.key}`, {
          state: 'completed',
          token: '',
          at: Date.parse(line.at),
          response: line.idempotency.response,
          fingerprint: line.idempotency.fingerprint ?? null,
        });
      }
      return;
    }
    const { outcome } = line;
    for (const u of outcome.updates) {
      const m = this.#messages.get(u.id);
      if (m) Object.assign(m, u);
    }
    for (const e of outcome.events) this.#outbox.set(e.id, e);
    const job = this.#jobs.get(line.job_id);
    this.#leases.delete(line.job_id);
    if (!job) return;
    if (outcome.retry) {
      job.message_ids = outcome.retry.message_ids;
      job.next_attempt_at = outcome.retry.next_attempt_at;
      job.last_error = outcome.retry.last_error;
      job.attempts++;
    } else {
      this.#jobs.delete(job.id);
      const users = (this.#contentUsers.get(job.content_id) ?? 1) - 1;
      if (users > 0) this.#contentUsers.set(job.content_id, users);
      else {
        this.#contentUsers.delete(job.content_id);
        this.#contents.delete(job.content_id);
      }
    }
  }

  #count(workspaceId: string, debit: NonNullable<AcceptBatch['debit']>, sign: 1 | -1): void {
    let ws = this.#usage.get(workspaceId);
    if (!ws) this.#usage.set(workspaceId, (ws = new Map()));
    for (const w of debit.windows) ws.set(w.key, (ws.get(w.key) ?? 0) + sign * debit.n);
  }

  #applySuppression(l: SuppressionLine): void {
    if (l.t === 'add') {
      let ws = this.#suppressions.get(l.s.workspace_id);
      if (!ws) this.#suppressions.set(l.s.workspace_id, (ws = new Map()));
      if (!ws.has(l.s.address)) ws.set(l.s.address, l.s);
    } else {
      this.#suppressions.get(l.workspace_id)?.delete(l.address);
    }
  }

  /** Durable first, then visible: a worker never hands off what a crash could take back. */
  async write(line: WebhookLine): Promise<void> {
    await this.#write(line);
  }

  async #write(line: Line): Promise<void> {
    await this.mail.append(dayOf(line.at), [line]);
    this.#apply(line);
  }

  readonly messages: MessageStore = {
    accept: async (batch: AcceptBatch) => {
      const ws = batch.content.workspace_id;
      const line: Line = {
        t: 'accept',
        at: batch.content.created_at,
        content: copyContent(batch.content),
        messages: batch.messages.map(copyMessage),
        jobs: batch.jobs.map(copyJob),
        events: batch.events.map(copyEvent),
        ...(batch.debit ? { debit: { n: batch.debit.n, windows: batch.debit.windows.map((w) => ({ ...w })) } } : {}),
        ...(batch.idempotency ? { idempotency: { key: batch.idempotency.key, response: batch.idempotency.response, fingerprint: batch.idempotency.fingerprint ?? null } } : {}),
      };
      const listed = batch.unsuppressed?.filter((a) => this.#suppressions.get(ws)?.has(a)) ?? [];
      if (listed.length) throw suppressedRecipients(listed);
      const debit = line.debit;
      if (debit) {
        // Checked and reserved before the write, synchronously, so concurrent sends cannot both fit.
        const used = this.#usage.get(ws);
        for (const w of debit.windows) {
          const n = used?.get(w.key) ?? 0;
          if (w.limit !== null && n + debit.n > w.limit) throw sendQuotaReached(w, n);
        }
        this.#count(ws, debit, 1);
      }
      let at: LineAt;
      try {
        at = await this.mail.appendLocated(dayOf(line.at), line);
      } catch (e) {
        if (debit) this.#count(ws, debit, -1);
        throw e;
      }
      // Counted above already; apply the rest.
      this.#apply({ ...line, debit: undefined }, at);
    },
    get: async (workspaceId, id) => {
      const m = this.#messages.get(id);
      return m && m.workspace_id === workspaceId ? copyMessage(m) : null;
    },
    list: async (workspaceId, q: MessageQuery) => {
      const all = this.#byWorkspace.get(workspaceId) ?? [];
      const needle = q.recipient?.toLowerCase();
      const data: Message[] = [];
      let total = 0;
      for (let i = all.length - 1; i >= 0; i--) {
        const m = all[i]!;
        if (q.status && m.status !== q.status) continue;
        if (needle && !m.to.toLowerCase().includes(needle)) continue;
        if (total >= q.offset && data.length < q.limit) data.push(copyMessage(m));
        total++;
      }
      return { data, total };
    },
    byIds: async (ids) => ids.flatMap((id) => (this.#messages.has(id) ? [copyMessage(this.#messages.get(id)!)] : [])),
    content: async (id) => {
      const at = this.#contents.get(id);
      const line = at ? await this.mail.readAt(at) : null;
      // Parsed afresh from the file: nobody else holds this copy.
      return line?.t === 'accept' && line.content.id === id ? line.content : null;
    },
    purge: async (before) => {
      const cutoff = dayOf(before);
      // A day of this month stays on disk (its sends count in the monthly quota when the store is
      // read again); its messages leave the log all the same.
      const thisMonth = this.now().toISOString().slice(0, 7);
      let removed = 0;
      for (const day of await this.mail.partitions()) {
        if (day >= cutoff) break;
        for (const l of await this.mail.read(day)) {
          if (l.t !== 'accept') continue;
          for (const m of l.messages) {
            if (this.#messages.delete(m.id)) removed++;
          }
        }
        if (day.slice(0, 7) < thisMonth) await this.mail.drop(day);
      }
      for (const [ws, list] of this.#byWorkspace) this.#byWorkspace.set(ws, list.filter((m) => this.#messages.has(m.id)));
      return removed;
    },
  };

  readonly queue: QueueStore = {
    claim: async (owner, now, leaseMs, max) => {
      const t = Date.parse(now);
      const out: OutboundJob[] = [];
      for (const j of this.#jobs.values()) {
        if (out.length >= max) break;
        // A job never tried is due at once (QueueStore.claim).
        if (j.attempts > 0 && Date.parse(j.next_attempt_at) > t) continue;
        const lease = this.#leases.get(j.id);
        if (lease && lease.until > t) continue;
        this.#leases.set(j.id, { owner, until: t + leaseMs });
        out.push(copyJob(j));
      }
      return out;
    },
    renew: async (owner, jobIds, now, leaseMs) => {
      const t = Date.parse(now);
      for (const id of jobIds) {
        const lease = this.#leases.get(id);
        if (lease?.owner === owner) lease.until = t + leaseMs;
      }
    },
    complete: async (jobId, outcome) => {
      if (!this.#jobs.has(jobId)) throw new SvcError('not_found', `job ${jobId} is not pending`);
      // Suppressions go to their own journal (they outlive the day), and first: a crash before the
      // outcome line leaves the job to be tried again, which adds them again, harmlessly.
      for (const s of outcome.suppressions) await this.suppressions.add(s);
      const copied: JobOutcome = {
        updates: outcome.updates.map((u) => ({ ...u })),
        events: outcome.events.map(copyEvent),
        suppressions: [],
        ...(outcome.retry ? { retry: { ...outcome.retry, message_ids: [...outcome.retry.message_ids] } } : {}),
      };
      await this.#write({ t: 'outcome', at: this.now().toISOString(), job_id: jobId, outcome: copied });
    },
    depth: async () => this.#jobs.size,
  };

  readonly outbox: OutboxStore = {
    pending: async (limit) => {
      const out: OutboxEvent[] = [];
      for (const e of this.#outbox.values()) {
        if (out.length >= limit) break;
        out.push(copyEvent(e));
      }
      return out;
    },
  };

  readonly suppressions: SuppressionStore = {
    list: async (workspaceId) => [...(this.#suppressions.get(workspaceId)?.values() ?? [])].map(copySuppression),
    add: async (s) => {
      const existing = this.#suppressions.get(s.workspace_id)?.get(s.address);
      if (existing) return copySuppression(existing);
      const line: SuppressionLine = { t: 'add', s: copySuppression(s) };
      await this.suppressionLog.append(SUPPRESSIONS, [line]);
      this.#applySuppression(line);
      return copySuppression(s);
    },
    remove: async (workspaceId, address) => {
      if (!this.#suppressions.get(workspaceId)?.has(address)) return false;
      const line: SuppressionLine = { t: 'remove', workspace_id: workspaceId, address };
      await this.suppressionLog.append(SUPPRESSIONS, [line]);
      this.#applySuppression(line);
      return true;
    },
    find: async (workspaceId, addresses) => {
      const ws = this.#suppressions.get(workspaceId);
      return ws ? addresses.flatMap((a) => (ws.has(a) ? [copySuppression(ws.get(a)!)] : [])) : [];
    },
  };

  readonly idempotency: IdempotencyStore = {
    claim: async (workspaceId, key, token, now, ttlMs, runningTtlMs, fingerprint = null): Promise<IdempotencyClaim> => {
      const id = `${workspaceId}\0${key}`;
      const t = Date.parse(now);
      const cur = this.#idempotency.get(id);
      const fp = cur?.fingerprint ? { fingerprint: cur.fingerprint } : {};
      if (cur && cur.state === 'completed' && t - cur.at < ttlMs) return { state: 'completed', response: structuredClone(cur.response!), ...fp };
      if (cur && cur.state === 'running' && t - cur.at < runningTtlMs) return { state: 'running', ...fp };
      this.#idempotency.set(id, { state: 'running', token, at: t, response: null, fingerprint });
      return { state: 'claimed' };
    },
    release: async (workspaceId, key, token) => {
      const id = `${workspaceId}\0${key}`;
      const cur = this.#idempotency.get(id);
      if (cur?.state === 'running' && cur.token === token) this.#idempotency.delete(id);
    },
    renew: async (workspaceId, key, token, now) => {
      const cur = this.#idempotency.get(`${workspaceId}\0${key}`);
      if (cur?.state === 'running' && cur.token === token) cur.at = Date.parse(now);
    },
  };

  readonly rateLimit: RateLimitStore = {
    hit: async (keyId, now, windowMs, limit, want) => {
      const sec = Math.floor(Date.parse(now) / 1000);
      const span = Math.ceil(windowMs / 1000);
      let buckets = this.#hits.get(keyId);
      if (!buckets) this.#hits.set(keyId, (buckets = new Map()));
      let total = 0;
      for (const [s, n] of buckets) {
        if (s <= sec - span) buckets.delete(s);
        else total += n;
      }
      if (total >= limit) return { granted: 0, retryAfterMs: retryAfter(buckets, total, limit, sec, span) };
      const granted = Math.min(want, limit - total);
      buckets.set(sec, (buckets.get(sec) ?? 0) + granted);
      return { granted, retryAfterMs: 0 };
    },
  };

  readonly usage: UsageStore = {
    get: async (workspaceId, keys) => Object.fromEntries(keys.map((k) => [k, this.#usage.get(workspaceId)?.get(k) ?? 0])),
  };

  async close(): Promise<void> {
    await this.mail.close();
    await this.suppressionLog.close();
  }
}
