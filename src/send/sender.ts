// Who may send (spec.md "Prerequisites for sending" 2, "Limits" trial rule): the From address must be
// an active registered address on a verified domain of the workspace; a trial workspace's domain
// must also pass SPF, DKIM and DMARC.
import { SvcError } from '../errors.js';
import type { Domain } from '../model/domain.js';
import type { Workspace } from '../model/workspace.js';
import type { StoreSlice } from '../store/types.js';
import { passes } from '../model/domain.js';

/**
 * The verified domain of an active registered address of the workspace, or why it is not one (the
 * sentence the 403 and a list's from_address error end with).
 */
export async function registeredSender(
  store: StoreSlice<'domains' | 'addresses'>,
  ws: Workspace,
  address: string,
): Promise<{ domain: Domain } | { why: string }> {
  const lower = address.toLowerCase();
  const domainName = lower.slice(lower.lastIndexOf('@') + 1);
  const [domain, registered] = await Promise.all([store.domains.get(ws.id, domainName), store.addresses.get(ws.id, lower)]);
  if (registered && registered.status === 'active' && domain && domain.status === 'verified') return { domain };
  const why = !domain
    ? `${domainName} is not a domain of this account: add and verify the domain first.`
    : domain.status !== 'verified'
      ? `The domain ${domainName} is not verified yet: verify the domain first.`
      : registered?.status === 'disabled'
        ? `The domain ${domainName} is verified, but this address is disabled: enable it.`
        : `The domain ${domainName} is verified: add the address.`;
  return { why };
}

export async function authorizeSender(store: StoreSlice<'domains' | 'addresses'>, ws: Workspace, address: string): Promise<Domain> {
  const registered = await registeredSender(store, ws, address);
  if ('why' in registered)
    throw new SvcError('sender_not_authorized', `from address '${address}' is not registered for this account. ${registered.why}`);
  const { domain } = registered;
  const domainName = domain.domain;
  if (ws.plan === 'trial') {
    const failing = (domain.records ?? [])
      .filter((r) => ['spf', 'dkim', 'dmarc'].includes(r.purpose) && !passes(r.status))
      .map((r) => r.purpose.toUpperCase());
    if (domain.records === null || failing.length) {
      throw new SvcError(
        'forbidden',
        `trial workspaces send only once SPF, DKIM and DMARC of ${domainName} pass${failing.length ? ` (failing: ${failing.join(', ')})` : ''}: run svc domains verify ${domainName}`,
      );
    }
  }
  return domain;
}
