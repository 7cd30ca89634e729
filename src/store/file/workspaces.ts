// File store: workspaces (svc.json).
import { SvcError } from '../../errors.js';
import type { Workspace } from '../../model/workspace.js';
import type { WorkspaceStore } from '../port/workspaces.js';
import { copy, type DocFile } from './doc.js';

export function fileWorkspaces(doc: DocFile): WorkspaceStore {
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
  };
}
