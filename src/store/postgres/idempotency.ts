// Postgres: Idempotency-Key claims. Concurrent claims share one statement; a running claim stays
// alive by its heartbeat on the database's clock. A claim is completed in its send's statement.
import { Batcher } from './batcher.js';
import { SvcError } from '../../errors.js';
import type { StoredResponse } from '../../model/idempotency.js';
import type { IdempotencyStore } from '../port/idempotency.js';
import type { PgDb } from './db.js';

export function pgIdempotency(db: PgDb): IdempotencyStore {
  // Idempotency claims of concurrent requests, in one statement (two claims of the same key in one
  // batch make it fail, and then each runs alone). A claim is won by inserting the key, or by taking
  // over a completed one past its lifetime or a running one whose request must have died.
  type Claim = {
    workspace_id: string;
    key: string;
    token: string;
    now: string;
    ttl_ms: number;
    running_ttl_ms: number;
    fingerprint: string | null;
  };
  const claims = new Batcher<Claim, boolean>(async (items) => {
    const [first] = items as [Claim];
    // One statement answers for one pair of lifetimes (the service uses one); others go alone.
    if (items.some((c) => c.ttl_ms !== first.ttl_ms || c.running_ttl_ms !== first.running_ttl_ms)) throw new Error('mixed lifetimes');
    const won = await db.rows<{ token: string }>(
      // A running claim is alive while its request beats (heartbeat_at, the database's clock, one
      // for every daemon); a completed one lives its 24 hours by the caller's clock.
      //
      // Its commit does not wait for the disk (synchronous_commit off for this transaction alone,
      // set by the statement itself): the send it guards commits after it and waits for the log up
      // to there, the claim included, so a claim lost in a crash guarded nothing that was stored,
      // and a retry then rightly claims the key again. A request no longer waits for two flushes.
      `INSERT INTO idempotency_keys (workspace_id, key, state, token, created_at, fingerprint, heartbeat_at)
       SELECT workspace_id, key, 'running', token, now, fingerprint, now()
         FROM jsonb_to_recordset($1) AS c(workspace_id text, key text, token text, now timestamptz, fingerprint text),
              (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
       ON CONFLICT (workspace_id, key) DO UPDATE SET state = 'running', token = EXCLUDED.token, created_at = EXCLUDED.created_at, response = NULL, fingerprint = EXCLUDED.fingerprint,
              heartbeat_at = now()
        WHERE idempotency_keys.created_at < EXCLUDED.created_at - $2 * interval '1 millisecond'
           OR (idempotency_keys.state = 'running'
               AND COALESCE(idempotency_keys.heartbeat_at < now() - $3 * interval '1 millisecond',
                            idempotency_keys.created_at < EXCLUDED.created_at - $3 * interval '1 millisecond'))
       RETURNING token`,
      [JSON.stringify(items), first.ttl_ms, first.running_ttl_ms],
      'idem_claim',
    );
    const tokens = new Set(won.map((w) => w.token));
    fresher(won.length);
    return items.map((c) => tokens.has(c.token));
    // One claim statement in flight at a time: claims take no lock another waits for, and a round
    // trip costs Postgres more than the rows, so the calls that arrive meanwhile share the next one.
  }, 1);

  // The send that completes a claim finds it through the primary key only while the planner knows
  // how large the table is: a plan made while it was nearly empty (a new database, the first minute
  // after a start) read all of it for every batch, a day of keys when autovacuum is slow to analyse.
  // So the table's statistics are refreshed here as it grows (each time this daemon's claims have
  // doubled, from 1,000), which also makes every connection plan that statement again; a table that
  // stays about a day of keys is then not analysed again. One ANALYZE at a time (a small sample:
  // migration 0033), and a failure only means the next one is tried later.
  let claimed = 0;
  let analysedAt = 0;
  let analysing = false;
  const fresher = (n: number) => {
    claimed += n;
    if (analysing || claimed < Math.max(1_000, 2 * analysedAt)) return;
    analysing = true;
    const at = claimed;
    db.rows('ANALYZE idempotency_keys', [])
      .then(() => (analysedAt = at))
      .catch(() => (analysedAt = at))
      .finally(() => (analysing = false));
  };

  return {
    claim: async (workspaceId, key, token, now, ttlMs, runningTtlMs, fingerprint = null) => {
      if (await claims.run({ workspace_id: workspaceId, key, token, now, ttl_ms: ttlMs, running_ttl_ms: runningTtlMs, fingerprint }))
        return { state: 'claimed' };
      const [cur] = await db.rows<{ state: 'running' | 'completed'; response: StoredResponse | null; fingerprint: string | null }>(
        `SELECT state, response, fingerprint FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`,
        [workspaceId, key],
      );
      if (!cur) throw new SvcError('store_unavailable', 'idempotency key vanished while claiming it; retry');
      const fp = cur.fingerprint ? { fingerprint: cur.fingerprint } : {};
      return cur.state === 'completed' ? { state: 'completed', response: cur.response!, ...fp } : { state: 'running', ...fp };
    },
    release: async (workspaceId, key, token) => {
      await db.rows(`DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND token = $3 AND state = 'running'`, [
        workspaceId,
        key,
        token,
      ]);
    },
    renew: async (workspaceId, key, token) => {
      await db.rows(
        `UPDATE idempotency_keys SET heartbeat_at = now() WHERE workspace_id = $1 AND key = $2 AND token = $3 AND state = 'running'`,
        [workspaceId, key, token],
        'idem_renew',
      );
    },
    // Hourly, over about a day of keys: a scan of the table is cheaper than an index kept on every claim.
    purge: async (before) => {
      const [r] = await db.rows<{ n: number }>(
        `WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        [before],
      );
      return r?.n ?? 0;
    },
  };
}
