// Idempotency-Key claims.
import type { IdempotencyClaim } from '../../model/idempotency.js';

export interface IdempotencyStore {
  /**
   * Claims `key` for this request (`token`), unless a claim younger than `runningTtlMs` is running or
   * a completed one younger than `ttlMs` exists; older ones are taken over. `fingerprint` (a hash
   * of the request) is kept with the claim, so a reuse of the key for another request is told apart.
   * A claim is completed by the send it guards (AcceptBatch.idempotency).
   */
  claim(
    workspaceId: string,
    key: string,
    token: string,
    now: string,
    ttlMs: number,
    runningTtlMs: number,
    fingerprint?: string | null,
  ): Promise<IdempotencyClaim>;
  /** Gives a running claim back (the request failed before queueing). */
  release(workspaceId: string, key: string, token: string): Promise<void>;
  /**
   * A running request's heartbeat: its claim counts as alive for another runningTtlMs (measured
   * with the store's own clock where processes share it, as leases are).
   */
  renew(workspaceId: string, key: string, token: string, now: string): Promise<void>;
  /**
   * Forgets claims made before `before` (the retention worker passes now less the key's lifetime:
   * a completed claim that old replays nothing any more, a running one belongs to a request long
   * dead), so that the keys of every send ever made do not pile up; how many.
   */
  purge(before: string): Promise<number>;
}
