// spec.md "Idempotency key": claimed before queueing; a second request while the first runs → 409;
// after completion → the original body again (200, Idempotent-Replayed); a failure before queueing
// gives the key back; a store that cannot be reached → 503, nothing sent. Keys are per workspace and
// remembered 24 hours.
import { createHash } from 'node:crypto';
import { SvcError, isSvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Workspace } from '../model/workspace.js';
import type { SendResult } from '../model/send.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/**
 * A claim whose request died without finishing is taken over after this long. A live request
 * renews its claim every third of it, so a slow one is never taken over while it runs.
 */
export const RUNNING_TTL_MS = 30_000;
const MAX_KEY = 255;

export type Outcome = { replayed: false; status: 202; body: SendResult } | { replayed: true; status: number; body: unknown };

const unavailable = (e: unknown) => new SvcError('idempotency_unavailable', undefined, { cause: e });

/**
 * What identifies a request's body: a SHA-256 over its parsed JSON with keys in order, so the same
 * body sent again with other spacing or key order is the same request. The values are fed to the
 * hash one by one, each tagged with its type and strings with their length (unambiguous), rather
 * than as one canonical JSON string: building that string for a 10 KB HTML body cost more than
 * the rest of an Idempotency-Key (20 of its 30 per cent in `npm run bench -- idempotency`).
 */
export function fingerprint(body: unknown): string {
  const h = createHash('sha256');
  const feed = (v: unknown): void => {
    if (typeof v === 'string') {
      h.update(`s${Buffer.byteLength(v)}:`);
      h.update(v);
    } else if (Array.isArray(v)) {
      h.update(`a${v.length}:`);
      for (const x of v) feed(x);
    } else if (v && typeof v === 'object') {
      const keys = Object.keys(v).sort();
      h.update(`o${keys.length}:`);
      for (const k of keys) {
        feed(k);
        feed((v as Record<string, unknown>)[k]);
      }
    } else h.update(`${typeof v === 'number' ? 'd' : 'v'}${String(v)};`);
  };
  feed(body);
  return h.digest('hex');
}

export type Claim = { key: string; token: string; fingerprint: string };

export function idempotentSend({ store, clock, random }: DepsOf<'idempotency'>) {
  return async (
    ws: Workspace,
    key: string | undefined,
    body: unknown,
    run: (claim: Claim | null) => Promise<SendResult>,
  ): Promise<Outcome> => {
    // No header, or an empty one: no idempotency.
    if (key === undefined || key === '') return { replayed: false, status: 202, body: await run(null) };
    if (key.length > MAX_KEY || /[\u0000-\u001f\u007f]/.test(key)) {
      throw new SvcError('invalid_request', `invalid Idempotency-Key: 1 to ${MAX_KEY} printable characters`);
    }
    const token = random.uuid();
    const fp = fingerprint(body);
    let claim;
    try {
      claim = await store.idempotency.claim(ws.id, key, token, clock.now().toISOString(), IDEMPOTENCY_TTL_MS, RUNNING_TTL_MS, fp);
    } catch (e) {
      if (isSvcError(e) && (e.kind === 'store_unavailable' || e.kind === 'schema_behind')) throw unavailable(e);
      throw e;
    }
    // A claim made without a fingerprint (its caller gave none) replays whatever the body.
    if (claim.state !== 'claimed' && claim.fingerprint && claim.fingerprint !== fp) throw new SvcError('idempotency_mismatch');
    if (claim.state === 'completed')
      return { replayed: true, status: claim.response.status === 202 ? 200 : claim.response.status, body: claim.response.body };
    if (claim.state === 'running') throw new SvcError('conflict', 'a request with this Idempotency-Key is still in progress');
    const heartbeat = setInterval(() => {
      store.idempotency.renew(ws.id, key, token, clock.now().toISOString()).catch(() => {});
    }, RUNNING_TTL_MS / 3);
    heartbeat.unref();
    try {
      return { replayed: false, status: 202, body: await run({ key, token, fingerprint: fp }) };
    } catch (e) {
      await store.idempotency.release(ws.id, key, token).catch(() => {});
      if (isSvcError(e) && e.kind === 'store_unavailable') throw unavailable(e);
      throw e;
    } finally {
      clearInterval(heartbeat);
    }
  };
}
