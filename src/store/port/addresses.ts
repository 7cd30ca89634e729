// The store's ports, one file per aggregate: what the service asks of a backend, and nothing of how.
// Both backends (file/, postgres/) implement every port, and test/src/store/conformance/ holds each
// to the same behaviour. This file: sender addresses.
import type { Address } from '../../model/address.js';
import type { CountLimit } from '../../model/quota.js';
import type { Created } from '../../model/refusal.js';

export interface AddressStore {
  /** Throws conflict when registered already, not_found when the domain is gone; refuses at `limit`. */
  create(a: Address, limit: CountLimit): Promise<Created<Address>>;
  listByWorkspace(workspaceId: string): Promise<Address[]>;
  get(workspaceId: string, address: string): Promise<Address | null>;
  /** This exact mailbox (lowercase) as registered in any workspace (the MX finds whose mail it is). */
  everywhere(address: string): Promise<Address[]>;
  setStatus(workspaceId: string, id: string, status: Address['status']): Promise<Address | null>;
  remove(workspaceId: string, id: string): Promise<boolean>;
}
