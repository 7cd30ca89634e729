// File store: Idempotency-Key claims. Running claims live in memory only (a crash loses them, and
// nothing was sent); a completed claim is part of the send's accept line, so it is rebuilt with it,
// and forgotten once older than the key's lifetime (purge, from the retention worker).
import type { IdempotencyClaim, StoredResponse } from '../../model/idempotency.js';
import type { IdempotencyStore } from '../port/idempotency.js';
import type { AcceptLine } from './messages.js';
import type { Replay } from './replay.js';

interface Claim {
  state: 'running' | 'completed';
  token: string;
  at: number;
  response: StoredResponse | null;
  fingerprint: string | null;
}

export function fileIdempotency(replay: Replay): IdempotencyStore {
  /** workspace\0key → claim. */
  const claims = new Map<string, Claim>();
  replay.on<AcceptLine>('accept', (line) => {
    if (!line.idempotency) return;
    claims.set(`${line.content.workspace_id}\0${line.idempotency.key}`, {
      state: 'completed',
      token: '',
      at: Date.parse(line.at),
      response: line.idempotency.response,
      fingerprint: line.idempotency.fingerprint ?? null,
    });
  });
  return {
    claim: async (workspaceId, key, token, now, ttlMs, runningTtlMs, fingerprint = null): Promise<IdempotencyClaim> => {
      const id = `${workspaceId}\0${key}`;
      const t = Date.parse(now);
      const cur = claims.get(id);
      const fp = cur?.fingerprint ? { fingerprint: cur.fingerprint } : {};
      if (cur && cur.state === 'completed' && t - cur.at < ttlMs)
        return { state: 'completed', response: structuredClone(cur.response!), ...fp };
      if (cur && cur.state === 'running' && t - cur.at < runningTtlMs) return { state: 'running', ...fp };
      claims.set(id, { state: 'running', token, at: t, response: null, fingerprint });
      return { state: 'claimed' };
    },
    release: async (workspaceId, key, token) => {
      const id = `${workspaceId}\0${key}`;
      const cur = claims.get(id);
      if (cur?.state === 'running' && cur.token === token) claims.delete(id);
    },
    renew: async (workspaceId, key, token, now) => {
      const cur = claims.get(`${workspaceId}\0${key}`);
      if (cur?.state === 'running' && cur.token === token) cur.at = Date.parse(now);
    },
    // Only memory holds claims (a completed one is read back from its send's accept line at start
    // and forgotten again at the retention worker's first run).
    purge: async (before) => {
      const cutoff = Date.parse(before);
      let n = 0;
      for (const [id, c] of claims) {
        if (c.at < cutoff) {
          claims.delete(id);
          n++;
        }
      }
      return n;
    },
  };
}
