// Idempotency-Key claims on either SQL backend. Concurrent claims share a transaction; a running
// claim stays alive by its heartbeat on the database's clock. A claim is completed in its send's
// transaction (messages.ts).
import { SvcError } from '../../errors.js';
import type { StoredResponse } from '../../model/idempotency.js';
import type { IdempotencyStore } from '../port/idempotency.js';
import { Batcher } from './batcher.js';
import { fromJson, type SqlDb } from './db.js';

interface Claim {
  workspace_id: string;
  key: string;
  token: string;
  now: string;
  ttl_ms: number;
  running_ttl_ms: number;
  fingerprint: string | null;
}

const before = (at: string, ms: number) => new Date(Date.parse(at) - ms).toISOString();

export function sqlIdempotency(db: SqlDb): IdempotencyStore {
  // A claim is won by inserting the key, or by taking over a completed one past its lifetime or a
  // running one whose request must have died (no heartbeat for running_ttl_ms on the database's
  // clock; a completed one lives its 24 hours by the caller's clock). Its commit need not wait for
  // the disk: the send it guards commits after it, so a claim lost in a crash guarded nothing that
  // was stored, and a retry then rightly claims the key again.
  const claims = new Batcher<Claim, boolean>(
    (items) =>
      db.tx(async (q) => {
        await db.relaxCommit(q);
        const won: boolean[] = [];
        for (const c of items) {
          const row = await q
            .insertInto('idempotency_keys')
            .values({
              workspace_id: c.workspace_id,
              key: c.key,
              state: 'running',
              token: c.token,
              created_at: c.now,
              fingerprint: c.fingerprint,
              heartbeat_at: db.now(),
            })
            .onConflict((oc) =>
              oc
                .columns(['workspace_id', 'key'])
                .doUpdateSet({
                  state: 'running',
                  token: c.token,
                  created_at: c.now,
                  response: null,
                  fingerprint: c.fingerprint,
                  heartbeat_at: db.now(),
                })
                .where((e) =>
                  e.or([
                    e('idempotency_keys.created_at', '<', before(c.now, c.ttl_ms)),
                    e.and([
                      e('idempotency_keys.state', '=', 'running'),
                      e.or([
                        e('idempotency_keys.heartbeat_at', '<=', db.later(-c.running_ttl_ms)),
                        e.and([
                          e('idempotency_keys.heartbeat_at', 'is', null),
                          e('idempotency_keys.created_at', '<', before(c.now, c.running_ttl_ms)),
                        ]),
                      ]),
                    ]),
                  ]),
                ),
            )
            .returning('token')
            .executeTakeFirst();
          won.push(row?.token === c.token);
        }
        return won;
      }),
    { ...db.batching, parallel: 1 },
  );

  return {
    claim: async (workspaceId, key, token, now, ttlMs, runningTtlMs, fingerprint = null) => {
      if (await claims.run({ workspace_id: workspaceId, key, token, now, ttl_ms: ttlMs, running_ttl_ms: runningTtlMs, fingerprint }))
        return { state: 'claimed' };
      const cur = await db.run((q) =>
        q
          .selectFrom('idempotency_keys')
          .select(['state', 'response', 'fingerprint'])
          .where('workspace_id', '=', workspaceId)
          .where('key', '=', key)
          .executeTakeFirst(),
      );
      if (!cur) throw new SvcError('store_unavailable', 'idempotency key vanished while claiming it; retry');
      const fp = cur.fingerprint ? { fingerprint: cur.fingerprint } : {};
      return cur.state === 'completed'
        ? { state: 'completed', response: fromJson<StoredResponse>(cur.response), ...fp }
        : { state: 'running', ...fp };
    },
    release: async (workspaceId, key, token) => {
      await db.run((q) =>
        q
          .deleteFrom('idempotency_keys')
          .where('workspace_id', '=', workspaceId)
          .where('key', '=', key)
          .where('token', '=', token)
          .where('state', '=', 'running')
          .execute(),
      );
    },
    renew: async (workspaceId, key, token) => {
      await db.run((q) =>
        q
          .updateTable('idempotency_keys')
          .set({ heartbeat_at: db.now() })
          .where('workspace_id', '=', workspaceId)
          .where('key', '=', key)
          .where('token', '=', token)
          .where('state', '=', 'running')
          .execute(),
      );
    },
    // Hourly, over about a day of keys.
    purge: async (cutoff) =>
      Number((await db.run((q) => q.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst())).numDeletedRows),
  };
}
