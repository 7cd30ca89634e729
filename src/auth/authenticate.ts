// src/auth/: API keys, scopes, authentication and the rate limit.
//
// Turns a presented key into the workspace and scopes it stands for (spec.md "Authentication").
// Unknown, revoked and malformed-but-prefixed keys take the same path (hash, one lookup, one
// constant-time comparison) and the same error, so timing tells nothing about which it was.
import { timingSafeEqual } from 'node:crypto';
import { SvcError } from '../errors.js';
import type { ApiKey } from '../model/key.js';
import type { Workspace } from '../model/workspace.js';
import type { StoreSlice } from '../store/types.js';
import { hashKey, KEY_PATTERN, KEY_PREFIX } from './keys.js';
import type { Scope } from '../model/key.js';

export interface Principal {
  workspace: Workspace;
  key: Pick<ApiKey, 'id' | 'name' | 'scopes' | 'prefix'>;
  scopes: Scope[];
}

// Compared against when no key matched, so both paths do the same work.
const NO_MATCH = Buffer.alloc(32);

/** `Authorization: Bearer <token>` → token; the REST API's first check. */
export function bearerToken(header: string | undefined): string {
  const m = header === undefined ? null : /^Bearer +(\S+) *$/.exec(header);
  if (!m) throw new SvcError('missing_bearer');
  return m[1]!;
}

export async function authenticateKey(store: StoreSlice<'keys'>, token: string): Promise<Principal> {
  return (await authenticatePresented(store, token)).principal;
}

/** A key that authenticated, and its hash, by which it can be checked again without being kept. */
export async function authenticatePresented(store: StoreSlice<'keys'>, token: string): Promise<{ principal: Principal; hash: string }> {
  if (!token.startsWith(KEY_PREFIX)) throw new SvcError('invalid_key_format');
  const hash = hashKey(token);
  return { principal: await principalOf(store, hash, KEY_PATTERN.test(token)), hash };
}

/**
 * A key that authenticated earlier, checked again by its hash (the relay, at every MAIL FROM of a
 * session: a revoked key ends it). The same lookup and comparison as the first time.
 */
export function authenticateHash(store: StoreSlice<'keys'>, hash: string): Promise<Principal> {
  return principalOf(store, hash, true);
}

async function principalOf(store: StoreSlice<'keys'>, hash: string, wellFormed: boolean): Promise<Principal> {
  const presented = Buffer.from(hash, 'hex');
  const found = await store.keys.findByHash(hash);
  const stored = found ? Buffer.from(found.key.hash, 'hex') : NO_MATCH;
  const same = stored.length === presented.length && timingSafeEqual(stored, presented);
  if (!found || !same || !wellFormed || found.key.revoked_at !== null) throw new SvcError('invalid_key');
  return {
    workspace: found.workspace,
    key: { id: found.key.id, name: found.key.name, scopes: found.key.scopes, prefix: found.key.prefix },
    scopes: found.key.scopes,
  };
}
