// API keys and the scopes they carry (spec.md "Authentication"), fixed at creation.
import type { Workspace } from './workspace.js';

export const SCOPES = ['send', 'read', 'newsletter', 'contacts', '*'] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'send'];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

export interface ApiKey {
  id: string;
  workspace_id: string;
  name: string;
  scopes: Scope[];
  /** The first characters of the key, enough for a person to recognise it; never the whole key. */
  prefix: string;
  /** hex SHA-256 of the full key. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface KeyOwner {
  key: ApiKey;
  workspace: Workspace;
}
