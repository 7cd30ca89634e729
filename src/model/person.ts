// People of the web app (spec.md "The web app", CONTRACT "svc users"): accounts, their memberships
// of workspaces with a role, one-time sign-in links and sessions. An account is a person across
// workspaces (one email, one password); what they may do is the role of each membership.

export const ROLES = ['owner', 'admin', 'member'] as const;
/**
 * member: reads and answers the team inbox; admin: also keys, domains, addresses, webhooks and
 * members; owner: also the plan and deleting the workspace.
 */
export type Role = (typeof ROLES)[number];

/** Who may do what in a workspace: read and answer the inbox; manage keys, domains, addresses, webhooks and members; the plan and deletion. */
export const ROLE_MAY = {
  inbox: ['owner', 'admin', 'member'],
  manage: ['owner', 'admin'],
  own: ['owner'],
} as const satisfies Record<string, readonly Role[]>;

export interface Account {
  id: string;
  /** Lowercase; one account per email. */
  email: string;
  name: string | null;
  /** A memory-hard hash (argon2id) once the person chose a password; null before. */
  password_hash: string | null;
  created_at: string;
  last_sign_in_at: string | null;
}

export interface Membership {
  workspace_id: string;
  account_id: string;
  role: Role;
  created_at: string;
}

/** A person as a workspace lists them: the account (never its password hash) and their role there. */
export interface Person {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  /** When they joined this workspace. */
  created_at: string;
  last_sign_in_at: string | null;
}

export const personOf = (a: Account, m: Membership): Person => ({
  id: a.id,
  email: a.email,
  name: a.name,
  role: m.role,
  created_at: m.created_at,
  last_sign_in_at: a.last_sign_in_at,
});

/** A one-time sign-in link: only the SHA-256 of its token is kept. */
export interface SignInLink {
  token_hash: string;
  account_id: string;
  created_at: string;
  expires_at: string;
}

/** Why a role change or removal is refused (conflict): it would leave a workspace without an owner. */
export const LAST_OWNER = 'a workspace keeps at least one owner: make another person owner first';

/** How long a sign-in link printed by `svc users create|reset` (or mailed) may be used. */
export const SIGN_IN_LINK_HOURS = 24;

/** A signed-in browser: only the SHA-256 of its cookie's token is kept; ended by sign-out, reset or removal. */
export interface Session {
  token_hash: string;
  account_id: string;
  created_at: string;
  expires_at: string;
}
