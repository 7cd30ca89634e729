// The embedded store's workspaces (svc.json). A deletion moves the workspace out of the list at
// once (with its keys and memberships, and the accounts of its people who belong nowhere else),
// and its queued mail and webhook endpoints (their jobs) go; purge() then removes the rest of it
// from svc.json and, through the hooks, from svc.db.
import { SvcError } from '../../errors.js';
import type { Workspace } from '../../model/workspace.js';
import type { WorkspaceStore } from '../port/workspaces.js';
import { copy, type DocFile } from './doc.js';

/** What other aggregates do as a workspace is deleted: what must stop at once, and its purge (how many records went). */
export interface DeletionHooks {
  end(workspaceId: string): Promise<void>;
  forget(workspaceId: string): Promise<number>;
}

export function fileWorkspaces(doc: DocFile, hooks: DeletionHooks): WorkspaceStore {
  const purging = new Set<string>();
  return {
    create: async (ws) => {
      doc.open();
      if (doc.wsByName.has(ws.name)) throw new SvcError('conflict', `workspace '${ws.name}' already exists`);
      const rec: Workspace = { id: ws.id, name: ws.name, plan: ws.plan, created_at: ws.created_at };
      doc.data.workspaces.push(rec);
      doc.wsById.set(rec.id, rec);
      doc.wsByName.set(rec.name, rec);
      await doc.commit();
      return copy(rec);
    },
    list: async () => {
      doc.open();
      return copy(doc.data.workspaces);
    },
    getByName: async (name) => {
      doc.open();
      const ws = doc.wsByName.get(name);
      return ws ? copy(ws) : null;
    },
    setPlan: async (id, plan) => {
      doc.open();
      const ws = doc.wsById.get(id);
      if (!ws) return null;
      ws.plan = plan;
      await doc.commit();
      return copy(ws);
    },
    trialWarnings: async (id) => {
      doc.open();
      const t = doc.data.trials[id];
      return { sent: t?.sent ?? 0, last_at: t?.last_at ?? null };
    },
    recordTrialWarning: async (id, n, at) => {
      doc.open();
      if (!doc.wsById.has(id) || (doc.data.trials[id]?.sent ?? 0) !== n - 1) return false;
      doc.data.trials[id] = { sent: n, last_at: at };
      await doc.commit();
      return true;
    },
    markDeleted: async (id, at, reason) => {
      doc.open();
      const ws = doc.wsById.get(id);
      if (!ws) return false;
      const d = doc.data;
      d.workspaces = d.workspaces.filter((w) => w.id !== id);
      doc.wsById.delete(id);
      doc.wsByName.delete(ws.name);
      for (const k of d.keys) if (k.workspace_id === id) doc.keyByHash.delete(k.hash);
      d.keys = d.keys.filter((k) => k.workspace_id !== id);
      const people = new Set(d.memberships.filter((m) => m.workspace_id === id).map((m) => m.account_id));
      d.memberships = d.memberships.filter((m) => m.workspace_id !== id);
      // Its people's accounts go too, but for those who are members of another workspace.
      for (const m of d.memberships) people.delete(m.account_id);
      d.accounts = d.accounts.filter((a) => !people.has(a.id));
      d.sessions = d.sessions.filter((s) => !people.has(s.account_id));
      d.signin_links = d.signin_links.filter((l) => !people.has(l.account_id));
      d.deletions[id] = { ...copy(ws), deleted_at: at, reason, owner: null, claimed_at: null };
      await doc.commit();
      await hooks.end(id);
      return true;
    },
    deletions: async () => {
      doc.open();
      return Object.values(doc.data.deletions)
        .sort((a, b) => a.deleted_at.localeCompare(b.deleted_at))
        .map(({ owner: _o, claimed_at: _c, ...d }) => copy(d));
    },
    claimDeletion: async (id, owner, at, staleMs) => {
      doc.open();
      const d = doc.data.deletions[id];
      if (!d || (d.owner !== null && d.owner !== owner && Date.parse(d.claimed_at ?? at) + staleMs >= Date.parse(at))) return false;
      d.owner = owner;
      d.claimed_at = at;
      await doc.commit();
      return true;
    },
    // All of it in one call: what svc.json holds of a workspace is small.
    purge: async (id) => {
      doc.open();
      // One purge of a workspace at a time in this process (a sweep and the retention tick may both
      // ask): the second would find the mark still there while the first awaits svc.db, and both
      // would say it is done.
      if (!doc.data.deletions[id] || purging.has(id)) return { removed: 0, done: false };
      purging.add(id);
      try {
        return await purgeNow(id);
      } finally {
        purging.delete(id);
      }
    },
  };

  async function purgeNow(id: string): Promise<{ removed: number; done: boolean }> {
    let removed = await hooks.forget(id);
    const d = doc.data;
    const before =
      d.domains.length + d.addresses.length + d.webhook_endpoints.length + d.lists.length + d.keys.length + d.memberships.length;
    const other = <T extends { workspace_id: string }>(xs: T[]) => xs.filter((x) => x.workspace_id !== id);
    d.domains = other(d.domains);
    d.addresses = other(d.addresses);
    d.webhook_endpoints = other(d.webhook_endpoints);
    d.lists = other(d.lists);
    // Added by a request that was in flight as the workspace was marked.
    for (const k of d.keys) if (k.workspace_id === id) doc.keyByHash.delete(k.hash);
    d.keys = other(d.keys);
    d.memberships = other(d.memberships);
    removed +=
      before - (d.domains.length + d.addresses.length + d.webhook_endpoints.length + d.lists.length + d.keys.length + d.memberships.length);
    delete d.trials[id];
    delete d.deletions[id];
    await doc.commit();
    return { removed: removed + 1, done: true };
  }
}
