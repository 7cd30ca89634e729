// src/addresses/: registered sender addresses.
//
// Registered addresses: exact mailboxes on a domain of the workspace (spec.md "Prerequisites for
// sending" 2). A From address must be an active one on a verified domain.
import { upgradeUrlOf } from '../config.js';
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Address } from '../model/address.js';
import type { Workspace } from '../model/workspace.js';
import { parseMailbox } from '../mail/address.js';
import { createdOrLimit, limitFor } from '../workspaces/quota.js';
import { assertWritable } from '../workspaces/trial.js';

export interface AddressView {
  id: string;
  address: string;
  status: Address['status'];
  domain: string;
  created_at: string;
}

export function addressService({ store, clock, random, config }: DepsOf<'domains' | 'addresses'>) {
  function mailbox(input: string): string {
    const m = parseMailbox(input.trim());
    if ('error' in m) throw new SvcError('invalid_argument', `invalid address '${input.slice(0, 80)}': ${m.error}`);
    return m.address.toLowerCase();
  }

  async function viewAll(ws: Workspace): Promise<AddressView[]> {
    const domains = new Map((await store.domains.listByWorkspace(ws.id)).map((d) => [d.id, d.domain]));
    return (await store.addresses.listByWorkspace(ws.id)).map((a) => ({
      id: a.id,
      address: a.address,
      status: a.status,
      domain: domains.get(a.domain_id) ?? '',
      created_at: a.created_at,
    }));
  }

  /** By address or id. */
  async function find(ws: Workspace, ref: string): Promise<Address> {
    const all = await store.addresses.listByWorkspace(ws.id);
    const a = all.find((x) => x.id === ref) ?? all.find((x) => x.address === ref.trim().toLowerCase());
    if (!a) throw new SvcError('not_found', `address ${ref} not found in workspace '${ws.name}'`);
    return a;
  }

  const toView = (a: Address, domain: string): AddressView => ({
    id: a.id,
    address: a.address,
    status: a.status,
    domain,
    created_at: a.created_at,
  });

  return {
    async add(ws: Workspace, input: string): Promise<AddressView> {
      assertWritable(ws, clock.now());
      const address = mailbox(input);
      const domainName = address.slice(address.lastIndexOf('@') + 1);
      const domain = await store.domains.get(ws.id, domainName);
      if (!domain) {
        throw new SvcError(
          'not_found',
          `${domainName} is not a domain of workspace '${ws.name}': add it first with \`svc domains add ${domainName}\``,
        );
      }
      const a = createdOrLimit(
        await store.addresses.create(
          {
            id: random.uuid(),
            workspace_id: ws.id,
            domain_id: domain.id,
            address,
            status: 'active',
            created_at: clock.now().toISOString(),
          },
          limitFor(ws, 'addresses'),
        ),
        ws,
        upgradeUrlOf(config, ws),
      );
      return toView(a, domain.domain);
    },

    list: viewAll,

    async setStatus(ws: Workspace, ref: string, status: Address['status']): Promise<AddressView> {
      const a = await find(ws, ref);
      const updated = await store.addresses.setStatus(ws.id, a.id, status);
      if (!updated) throw new SvcError('not_found', `address ${ref} not found`);
      return toView(updated, updated.address.slice(updated.address.lastIndexOf('@') + 1));
    },

    async remove(ws: Workspace, ref: string): Promise<{ id: string; address: string }> {
      const a = await find(ws, ref);
      await store.addresses.remove(ws.id, a.id);
      return { id: a.id, address: a.address };
    },
  };
}

export type AddressService = ReturnType<typeof addressService>;
