// File store: sending domains (svc.json). Removing a domain removes its addresses. With the
// operator's key, DKIM private keys are kept sealed in svc.json and opened as they are read.
import { SvcError } from '../../errors.js';
import { isSealed, NEEDS_KEY_FILE_STORE, NEEDS_KEY_SECRETS, openDomainKey, type SecretBox } from '../secret-box.js';
import { HISTORY_LIMIT, copyDomain, type Domain } from '../../model/domain.js';
import type { DomainStore } from '../port/domains.js';
import type { DocFile } from './doc.js';

/**
 * At open: without a key, sealed keys mean the store cannot sign (refused, as on Postgres); with
 * one, a key sealed with another is refused and plaintext keys left from before are sealed now,
 * with the STARTTLS private key and the service's secrets.
 */
export async function sealDomainKeys(doc: DocFile, box: SecretBox | null): Promise<void> {
  const domains = doc.data.domains;
  if (!box) {
    if (domains.some((d) => isSealed(d.dkim_private_key))) throw new SvcError('store_locked', NEEDS_KEY_FILE_STORE);
    if ((doc.data.tls && isSealed(doc.data.tls.key)) || Object.values(doc.data.secrets).some(isSealed))
      throw new SvcError('store_locked', NEEDS_KEY_SECRETS);
    return;
  }
  // A key sealed with another key is refused (store_locked); a damaged one disables its domain only.
  for (const d of domains) if (isSealed(d.dkim_private_key)) openDomainKey(box, d);
  const plain = domains.filter((d) => !isSealed(d.dkim_private_key));
  for (const d of plain) d.dkim_private_key = box.seal(d.dkim_private_key);
  // The STARTTLS private key and the service's secrets (the tracked-link key) likewise.
  const tls = doc.data.tls && !isSealed(doc.data.tls.key) ? doc.data.tls : null;
  if (tls) tls.key = box.seal(tls.key);
  const secrets = Object.entries(doc.data.secrets).filter(([, v]) => !isSealed(v));
  for (const [name, v] of secrets) doc.data.secrets[name] = box.seal(v);
  if (plain.length || tls || secrets.length) await doc.commit();
}

export function fileDomains(doc: DocFile, box: SecretBox | null = null): DomainStore {
  // Opened keys by their sealed value: every hand-off reads its domain.
  const opened = new Map<string, string>();
  const open = (d: Domain): Domain => {
    if (!box || !isSealed(d.dkim_private_key)) return d;
    const plain = opened.get(d.dkim_private_key);
    if (plain !== undefined) return { ...d, dkim_private_key: plain };
    const o = openDomainKey(box, d);
    if (!o.key_damaged) opened.set(d.dkim_private_key, o.dkim_private_key);
    return o;
  };
  const out = (d: Domain): Domain => open(copyDomain(d));
  return {
    create: async (d, limit) => {
      doc.open();
      if (!doc.wsById.has(d.workspace_id)) throw new SvcError('not_found', 'workspace not found');
      const mine = doc.data.domains.filter((x) => x.workspace_id === d.workspace_id);
      if (mine.some((x) => x.domain === d.domain)) throw new SvcError('conflict', `domain ${d.domain} is already in this workspace`);
      if (limit !== null && mine.length >= limit) return { refused: 'count_limit', kind: 'domains', limit, used: mine.length };
      const rec: Domain = {
        id: d.id,
        workspace_id: d.workspace_id,
        domain: d.domain,
        status: d.status,
        token: d.token,
        dkim_public_key: d.dkim_public_key,
        dkim_private_key: box ? box.seal(d.dkim_private_key) : d.dkim_private_key,
        legacy: d.legacy,
        dkim_verified: d.dkim_verified,
        records: d.records,
        history: d.history,
        created_at: d.created_at,
        verified_at: d.verified_at,
        checked_at: d.checked_at,
      };
      doc.data.domains.push(rec);
      await doc.commit();
      return out(rec);
    },
    listByWorkspace: async (workspaceId) => {
      doc.open();
      return doc.data.domains.filter((d) => d.workspace_id === workspaceId).map(out);
    },
    listAll: async () => {
      doc.open();
      return doc.data.domains.map(out);
    },
    get: async (workspaceId, domain) => {
      doc.open();
      const d = doc.data.domains.find((x) => x.workspace_id === workspaceId && x.domain === domain);
      return d ? out(d) : null;
    },
    byId: async (id) => {
      doc.open();
      const d = doc.data.domains.find((x) => x.id === id);
      return d ? out(d) : null;
    },
    verifiedBy: async (domain) => {
      doc.open();
      return doc.data.domains.find((x) => x.domain === domain && x.status === 'verified')?.workspace_id ?? null;
    },
    saveCheck: async (id, check) => {
      doc.open();
      const d = doc.data.domains.find((x) => x.id === id);
      if (!d) throw new SvcError('not_found', 'domain not found');
      if (check.verify && d.status !== 'verified') {
        const other = doc.data.domains.find((x) => x.domain === d.domain && x.status === 'verified' && x.id !== d.id);
        if (other) throw new SvcError('conflict', `domain ${d.domain} is already verified by another workspace`);
        d.status = 'verified';
        d.verified_at = check.checked_at;
      }
      d.records = check.records;
      d.history = [...d.history, ...check.changes].slice(-HISTORY_LIMIT);
      d.dkim_verified = check.dkim_verified;
      d.checked_at = check.checked_at;
      await doc.commit();
      return out(d);
    },
    remove: async (workspaceId, id) => {
      doc.open();
      const before = doc.data.domains.length;
      doc.data.domains = doc.data.domains.filter((d) => !(d.id === id && d.workspace_id === workspaceId));
      if (doc.data.domains.length === before) return false;
      doc.data.addresses = doc.data.addresses.filter((a) => a.domain_id !== id);
      await doc.commit();
      return true;
    },
  };
}
