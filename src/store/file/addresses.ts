// src/store/file/: the embedded file store: one file per aggregate, assembled by file-store.ts over
// svc.json (doc.ts), the journals (journal.ts, replay.ts) and the lock.
//
// File store: sender addresses (svc.json).
import { SvcError } from '../../errors.js';
import type { Address } from '../../model/address.js';
import type { AddressStore } from '../port/addresses.js';
import { copy, type DocFile } from './doc.js';

export function fileAddresses(doc: DocFile): AddressStore {
  return {
    create: async (a, limit) => {
      doc.open();
      if (!doc.data.domains.some((d) => d.id === a.domain_id && d.workspace_id === a.workspace_id))
        throw new SvcError('not_found', 'domain not found');
      const mine = doc.data.addresses.filter((x) => x.workspace_id === a.workspace_id);
      if (mine.some((x) => x.address === a.address)) throw new SvcError('conflict', `address ${a.address} is already registered`);
      if (limit !== null && mine.length >= limit) return { refused: 'count_limit', kind: 'addresses', limit, used: mine.length };
      const rec: Address = {
        id: a.id,
        workspace_id: a.workspace_id,
        domain_id: a.domain_id,
        address: a.address,
        status: a.status,
        created_at: a.created_at,
      };
      doc.data.addresses.push(rec);
      await doc.commit();
      return copy(rec);
    },
    listByWorkspace: async (workspaceId) => {
      doc.open();
      return copy(doc.data.addresses.filter((a) => a.workspace_id === workspaceId));
    },
    get: async (workspaceId, address) => {
      doc.open();
      const a = doc.data.addresses.find((x) => x.workspace_id === workspaceId && x.address === address);
      return a ? copy(a) : null;
    },
    everywhere: async (address) => {
      doc.open();
      return copy(doc.addressesNamed(address) as Address[]);
    },
    setStatus: async (workspaceId, id, status) => {
      doc.open();
      const a = doc.data.addresses.find((x) => x.workspace_id === workspaceId && x.id === id);
      if (!a) return null;
      if (a.status !== status) {
        a.status = status;
        await doc.commit();
      }
      return copy(a);
    },
    remove: async (workspaceId, id) => {
      doc.open();
      const before = doc.data.addresses.length;
      doc.data.addresses = doc.data.addresses.filter((a) => !(a.id === id && a.workspace_id === workspaceId));
      if (doc.data.addresses.length === before) return false;
      await doc.commit();
      return true;
    },
  };
}
