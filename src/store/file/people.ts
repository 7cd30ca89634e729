// File store: people (svc.json): accounts, memberships, sign-in links and sessions.
import { SvcError } from '../../errors.js';
import { LAST_OWNER, personOf, type Person } from '../../model/person.js';
import type { PeopleStore } from '../port/people.js';
import { copy, type DocFile } from './doc.js';

export function filePeople(doc: DocFile): PeopleStore {
  const membersOf = (workspaceId: string): Person[] => {
    const d = doc.data;
    return d.memberships.flatMap((m) => {
      const a = m.workspace_id === workspaceId ? d.accounts.find((x) => x.id === m.account_id) : undefined;
      return a ? [personOf(a, m)] : [];
    });
  };
  const lastOwner = (workspaceId: string, accountId: string) => {
    const owners = doc.data.memberships.filter((m) => m.workspace_id === workspaceId && m.role === 'owner');
    return owners.length === 1 && owners[0]!.account_id === accountId;
  };
  /** Drops the account's sessions and links; whether anything went, and how many sessions. */
  const endAll = (accountId: string): number => {
    const d = doc.data;
    const before = d.sessions.length;
    d.sessions = d.sessions.filter((s) => s.account_id !== accountId);
    d.signin_links = d.signin_links.filter((l) => l.account_id !== accountId);
    return before - d.sessions.length;
  };

  return {
    add: async (workspaceId, account, role, limit, at) => {
      doc.open();
      const d = doc.data;
      if (!doc.wsById.has(workspaceId)) throw new SvcError('not_found', 'workspace not found');
      const existing = d.accounts.find((a) => a.email === account.email);
      const mine = d.memberships.filter((m) => m.workspace_id === workspaceId);
      if (existing && mine.some((m) => m.account_id === existing.id))
        throw new SvcError('conflict', `${account.email} is a member of this workspace already`);
      if (limit !== null && mine.length >= limit) return { refused: 'count_limit', kind: 'seats', limit, used: mine.length };
      const a = existing ?? copy(account);
      if (!existing) d.accounts.push(a);
      const m = { workspace_id: workspaceId, account_id: a.id, role, created_at: at };
      d.memberships.push(m);
      await doc.commit();
      return personOf(a, m);
    },
    list: async (workspaceId) => {
      doc.open();
      return membersOf(workspaceId);
    },
    get: async (workspaceId, email) => {
      doc.open();
      return membersOf(workspaceId).find((m) => m.email === email) ?? null;
    },
    setRole: async (workspaceId, accountId, role) => {
      doc.open();
      const m = doc.data.memberships.find((x) => x.workspace_id === workspaceId && x.account_id === accountId);
      if (!m) return null;
      if (m.role !== role) {
        if (m.role === 'owner' && lastOwner(workspaceId, accountId)) throw new SvcError('conflict', LAST_OWNER);
        m.role = role;
        await doc.commit();
      }
      return membersOf(workspaceId).find((x) => x.id === accountId) ?? null;
    },
    remove: async (workspaceId, accountId) => {
      doc.open();
      const d = doc.data;
      const m = d.memberships.find((x) => x.workspace_id === workspaceId && x.account_id === accountId);
      if (!m) return false;
      if (m.role === 'owner' && lastOwner(workspaceId, accountId)) throw new SvcError('conflict', LAST_OWNER);
      d.memberships = d.memberships.filter((x) => x !== m);
      endAll(accountId);
      await doc.commit();
      return true;
    },
    account: async (email) => {
      doc.open();
      return copy(doc.data.accounts.find((a) => a.email === email) ?? null);
    },
    accountById: async (id) => {
      doc.open();
      return copy(doc.data.accounts.find((a) => a.id === id) ?? null);
    },
    memberships: async (accountId) => {
      doc.open();
      return copy(doc.data.memberships.filter((m) => m.account_id === accountId));
    },
    issueLink: async (link) => {
      doc.open();
      const d = doc.data;
      if (!d.accounts.some((a) => a.id === link.account_id)) throw new SvcError('not_found', 'account not found');
      d.signin_links = [...d.signin_links.filter((l) => l.account_id !== link.account_id), copy(link)];
      await doc.commit();
    },
    useLink: async (tokenHash, at) => {
      doc.open();
      const d = doc.data;
      const link = d.signin_links.find((l) => l.token_hash === tokenHash);
      if (!link) return null;
      d.signin_links = d.signin_links.filter((l) => l !== link);
      await doc.commit();
      if (link.expires_at <= at) return null;
      return copy(d.accounts.find((a) => a.id === link.account_id) ?? null);
    },
    peekLink: async (tokenHash, at) => {
      doc.open();
      const link = doc.data.signin_links.find((l) => l.token_hash === tokenHash && l.expires_at > at);
      return copy(link ? (doc.data.accounts.find((a) => a.id === link.account_id) ?? null) : null);
    },
    setPassword: async (accountId, passwordHash) => {
      doc.open();
      const a = doc.data.accounts.find((x) => x.id === accountId);
      if (!a) return false;
      a.password_hash = passwordHash;
      await doc.commit();
      return true;
    },
    signedIn: async (accountId, at) => {
      doc.open();
      const a = doc.data.accounts.find((x) => x.id === accountId);
      if (!a) return;
      a.last_sign_in_at = at;
      await doc.commit();
    },
    createSession: async (s) => {
      doc.open();
      if (!doc.data.accounts.some((a) => a.id === s.account_id)) throw new SvcError('not_found', 'account not found');
      doc.data.sessions.push(copy(s));
      await doc.commit();
    },
    session: async (tokenHash, at) => {
      doc.open();
      const s = doc.data.sessions.find((x) => x.token_hash === tokenHash);
      return s && s.expires_at > at ? copy(s) : null;
    },
    endSession: async (tokenHash) => {
      doc.open();
      const before = doc.data.sessions.length;
      doc.data.sessions = doc.data.sessions.filter((s) => s.token_hash !== tokenHash);
      if (doc.data.sessions.length !== before) await doc.commit();
    },
    endSessions: async (accountId) => {
      doc.open();
      const d = doc.data;
      const had = d.sessions.length + d.signin_links.length;
      const n = endAll(accountId);
      if (d.sessions.length + d.signin_links.length !== had) await doc.commit();
      return n;
    },
  };
}
