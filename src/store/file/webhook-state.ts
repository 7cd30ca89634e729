// The file store's webhook jobs and delivery log, in memory, rebuilt from the lines the mail
// journal holds for them (webhooks.ts writes them and registers them for replay).
import { Leases } from './leases.js';
import type { AttemptQuery, AttemptRecord, WebhookAttempt, WebhookJob } from '../../model/webhook.js';

export type WebhookLine =
  | { t: 'wh_fanout'; at: string; event_ids: string[]; jobs: WebhookJob[] }
  | { t: 'wh_record'; at: string; records: AttemptRecord[] }
  | { t: 'wh_drop'; at: string; endpoint_id: string };

const copyJob = (j: WebhookJob): WebhookJob => ({ ...j, payload: { ...j.payload } });
const copyAttempt = (a: WebhookAttempt): WebhookAttempt => ({ ...a, payload: { ...a.payload } });

export class WebhookState {
  /** Pending jobs only: a finished job leaves memory (its attempts stay in the log). */
  #jobs = new Map<string, WebhookJob>();
  #leases = new Leases();
  /** The delivery log in the order written. */
  #log: WebhookAttempt[] = [];
  #byId = new Map<string, WebhookAttempt>();
  /** endpoint → start of its current run of failures (derived from the log). */
  #failing = new Map<string, string>();

  apply(line: WebhookLine): void {
    if (line.t === 'wh_fanout') {
      for (const j of line.jobs) this.#jobs.set(j.id, copyJob(j));
    } else if (line.t === 'wh_drop') {
      for (const [id, j] of this.#jobs) if (j.endpoint_id === line.endpoint_id) this.#jobs.delete(id);
      this.#failing.delete(line.endpoint_id);
    } else {
      for (const r of line.records) {
        const a = copyAttempt(r.attempt);
        this.#log.push(a);
        this.#byId.set(a.id, a);
        if (a.ok) this.#failing.delete(a.endpoint_id);
        else if (!this.#failing.has(a.endpoint_id)) this.#failing.set(a.endpoint_id, a.attempted_at);
        if (!r.job) continue;
        this.#leases.release(r.job.id);
        const job = this.#jobs.get(r.job.id);
        if (!job) continue;
        if (r.job.state === 'pending') Object.assign(job, { attempts: r.job.attempts, next_attempt_at: r.job.next_attempt_at });
        else this.#jobs.delete(job.id);
      }
    }
  }

  failingSince(endpointId: string): string | null {
    return this.#failing.get(endpointId) ?? null;
  }

  /** Due jobs whose endpoint `usable` accepts, leased until now + leaseMs. */
  claim(owner: string, now: string, leaseMs: number, max: number, usable: (endpointId: string) => boolean): WebhookJob[] {
    const t = Date.parse(now);
    const out: WebhookJob[] = [];
    for (const j of this.#jobs.values()) {
      if (out.length >= max) break;
      if (Date.parse(j.next_attempt_at) > t || !this.#leases.free(j.id, t) || !usable(j.endpoint_id)) continue;
      this.#leases.take(j.id, owner, t, leaseMs);
      out.push(copyJob(j));
    }
    return out;
  }

  has(jobId: string): boolean {
    return this.#jobs.has(jobId);
  }

  depth(): number {
    return this.#jobs.size;
  }

  attempts(workspaceId: string, q: AttemptQuery): WebhookAttempt[] {
    const out: WebhookAttempt[] = [];
    for (let i = this.#log.length - 1; i >= 0 && out.length < q.limit; i--) {
      const a = this.#log[i]!;
      if (
        (q.since && a.attempted_at < q.since) ||
        a.workspace_id !== workspaceId ||
        (q.endpoint_id && a.endpoint_id !== q.endpoint_id) ||
        (q.message_id && a.message_id !== q.message_id) ||
        (q.failed && a.ok)
      )
        continue;
      out.push(copyAttempt(a));
    }
    return out;
  }

  attemptIdsWithPrefix(workspaceId: string, prefix: string, limit: number): string[] {
    const ids: string[] = [];
    for (const a of this.#log) {
      if (a.workspace_id === workspaceId && a.id.startsWith(prefix)) ids.push(a.id);
      if (ids.length >= limit) break;
    }
    return ids;
  }

  attempt(workspaceId: string, id: string): WebhookAttempt | null {
    const a = this.#byId.get(id);
    return a && a.workspace_id === workspaceId ? copyAttempt(a) : null;
  }

  /** Forgets log rows older than `before` (their journal days go with the mail's). */
  purge(before: string): number {
    const before0 = this.#log.length;
    this.#log = this.#log.filter((a) => a.attempted_at >= before || !this.#byId.delete(a.id));
    return before0 - this.#log.length;
  }
}
