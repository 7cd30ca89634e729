// Sending domains and their DNS checks.
import type { Domain, DomainCheck } from '../../model/domain.js';
import type { CountLimit } from '../../model/quota.js';
import type { Created } from '../../model/refusal.js';

export interface DomainStore {
  /** Throws conflict when the workspace has this domain; refuses when at `limit`. */
  create(d: Domain, limit: CountLimit): Promise<Created<Domain>>;
  listByWorkspace(workspaceId: string): Promise<Domain[]>;
  /** Every domain of every workspace (the daemon's periodic re-check). */
  listAll(): Promise<Domain[]>;
  get(workspaceId: string, domain: string): Promise<Domain | null>;
  byId(id: string): Promise<Domain | null>;
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
