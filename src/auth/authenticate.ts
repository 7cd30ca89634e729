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
  if (!token.startsWith(KEY_PREFIX)) throw new SvcError('invalid_key_format');
  const presented = Buffer.from(hashKey(token), 'hex');
  const found = await store.keys.findByHash(presented.toString('hex'));
  const stored = found ? Buffer.from(found.key.hash, 'hex') : NO_MATCH;
  const same = stored.length === presented.length && timingSafeEqual(stored, presented);
  const wellFormed = KEY_PATTERN.test(token);
  if (!found || !same || !wellFormed || found.key.revoked_at !== null) throw new SvcError('invalid_key');
  return {
    workspace: found.workspace,
    key: { id: found.key.id, name: found.key.name, scopes: found.key.scopes, prefix: found.key.prefix },
    scopes: found.key.scopes,
  };
}
