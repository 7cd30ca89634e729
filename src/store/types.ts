// The one store interface (DESIGN.md "Shape"): async, grouped by aggregate, with the operations the
// service needs. Both backends implement it and pass test/src/store/conformance.ts.
import type { Scope } from '../auth/scopes.js';
import type { Plan } from '../workspaces/plans.js';
import type { Purpose, RecordStatus } from '../domains/records.js';

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
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

/** The last check of one of a domain's five records. */
export interface RecordCheck {
  purpose: Purpose;
  status: RecordStatus;
  note: string | null;
  /** What to publish when it differs from the default value (a merged SPF record). */
  value: string | null;
  checked_at: string;
}

/** A change of a record's status between two checks, kept so that regressions stay visible. */
export interface RecordChange {
  at: string;
  purpose: Purpose;
  from: RecordStatus | null;
  to: RecordStatus;
  note: string | null;
}

export interface Domain {
  id: string;
  workspace_id: string;
  /** Lowercase ASCII (punycode). */
  domain: string;
  status: 'pending' | 'verified';
  /** Ownership token: svc-verify=<token> at _svc. */
  token: string;
  /** base64 SPKI DER of the DKIM public key (the p= value). */
  dkim_public_key: string;
  /** PKCS#8 PEM; never leaves the store except to sign. */
  dkim_private_key: string;
  /** Verified before the five-record scheme (kept working; signed with its own key once DKIM checks out). */
  legacy: boolean;
  /** Whether the last check found our DKIM key published. */
  dkim_verified: boolean;
  /** null before the first check. */
  records: RecordCheck[] | null;
  history: RecordChange[];
  created_at: string;
  verified_at: string | null;
  checked_at: string | null;
}

export interface DomainCheck {
  records: RecordCheck[];
  changes: RecordChange[];
  dkim_verified: boolean;
  checked_at: string;
  /** All five passed: mark the domain verified, unless another workspace has it verified. */
  verify: boolean;
}

/** How many of a kind a workspace may have; null for unlimited. */
export type CountLimit = number | null;

export interface DomainStore {
  /** Throws conflict when the workspace has this domain, QuotaExceeded when at `limit`. */
  create(d: Domain, limit: CountLimit): Promise<Domain>;
  listByWorkspace(workspaceId: string): Promise<Domain[]>;
  /** Every domain of every workspace (the daemon's periodic re-check). */
  listAll(): Promise<Domain[]>;
  get(workspaceId: string, domain: string): Promise<Domain | null>;
  /** The workspace that has this domain verified, if any. */
  verifiedBy(domain: string): Promise<string | null>;
  /**
   * Stores a check: the records, appended history (the newest HISTORY_LIMIT kept), and with
   * `verify` the verified status. Throws conflict if another workspace verified the domain first.
   */
  saveCheck(id: string, check: DomainCheck): Promise<Domain>;
  /** Removes the domain and its addresses. */
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export const HISTORY_LIMIT = 100;

export interface Address {
  id: string;
  workspace_id: string;
  domain_id: string;
  /** local@domain, lowercase. */
  address: string;
  status: 'active' | 'disabled';
  created_at: string;
}

export interface AddressStore {
  /** Throws conflict when registered already, not_found when the domain is gone, QuotaExceeded at `limit`. */
  create(a: Address, limit: CountLimit): Promise<Address>;
  listByWorkspace(workspaceId: string): Promise<Address[]>;
  get(workspaceId: string, address: string): Promise<Address | null>;
  setStatus(workspaceId: string, id: string, status: Address['status']): Promise<Address | null>;
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export interface WorkspaceStore {
  /** Throws SvcError conflict when the name is taken. */
  create(ws: Workspace): Promise<Workspace>;
  list(): Promise<Workspace[]>;
  getByName(name: string): Promise<Workspace | null>;
  setPlan(id: string, plan: Plan): Promise<Workspace | null>;
}

export interface KeyStore {
  create(key: ApiKey): Promise<ApiKey>;
  listByWorkspace(workspaceId: string): Promise<ApiKey[]>;
  /** The key with this hash and its workspace, revoked or not. */
  findByHash(hash: string): Promise<KeyOwner | null>;
  /** Sets revoked_at once; revoking again keeps the first time. Null when no such key in the workspace. */
  revoke(workspaceId: string, id: string, at: string): Promise<ApiKey | null>;
}

export interface StoreGroups {
  workspaces: WorkspaceStore;
  keys: KeyStore;
  domains: DomainStore;
  addresses: AddressStore;
}

export interface Store extends StoreGroups {
  /** A short description for logs, never with a password. */
  readonly describe: string;
  /** Resolves when the store answers; throws SvcError store_unavailable otherwise. */
  health(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Every operation of every group, so that the daemon's admin socket can forward exactly these and
 * nothing else. The mapped type makes the compiler insist that a new operation is listed here.
 */
export const storeOperations: { [G in keyof StoreGroups]: Record<keyof StoreGroups[G], true> } = {
  workspaces: { create: true, list: true, getByName: true, setPlan: true },
  keys: { create: true, listByWorkspace: true, findByHash: true, revoke: true },
  domains: { create: true, listByWorkspace: true, listAll: true, get: true, verifiedBy: true, saveCheck: true, remove: true },
  addresses: { create: true, listByWorkspace: true, get: true, setStatus: true, remove: true },
};
