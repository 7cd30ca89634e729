// The embedded store's newsletter lists: their settings in svc.json with the other workspace
// settings, their subscribers in svc.db (the shared sql/subscribers.ts). A removed list leaves the
// document at once, so its subscribers count for nothing from then on; sweep deletes them after.
import { copy, type DocFile } from '../file/doc.js';
import type { List, ListWithCount } from '../../model/list.js';
import type { ListStore } from '../port/lists.js';
import type { SqlDb } from '../sql/db.js';
import { subscriberCounts, sweepSubscribers, type ListSource } from '../sql/subscribers.js';

export function docLists(doc: DocFile, db: SqlDb): { lists: ListStore; source: ListSource } {
  const listOf = (workspaceId: string, id: string) => doc.data.lists.find((l) => l.id === id && l.workspace_id === workspaceId);
  const counted = async (ls: List[]): Promise<ListWithCount[]> => {
    const n = await subscriberCounts(
      db,
      ls.map((l) => l.id),
    );
    return ls.map((l) => ({ ...copy(l), subscriber_count: n.get(l.id) ?? 0 }));
  };
  const one = async (l: List | undefined) => (l ? (await counted([l]))[0]! : null);

  const lists: ListStore = {
    create: async (l) => {
      doc.open();
      const rec = copy(l);
      doc.data.lists.push(rec);
      await doc.commit();
      return { ...copy(rec), subscriber_count: 0 };
    },
    listByWorkspace: async (workspaceId) => {
      doc.open();
      return counted(doc.data.lists.filter((l) => l.workspace_id === workspaceId));
    },
    get: async (workspaceId, id) => {
      doc.open();
      return one(listOf(workspaceId, id));
    },
    update: async (workspaceId, id, patch, at) => {
      doc.open();
      const l = listOf(workspaceId, id);
      if (!l) return null;
      for (const [k, v] of Object.entries(patch)) if (v !== undefined) (l as unknown as Record<string, unknown>)[k] = v;
      l.updated_at = at;
      await doc.commit();
      return one(l);
    },
    remove: async (workspaceId, id) => {
      doc.open();
      const before = doc.data.lists.length;
      doc.data.lists = doc.data.lists.filter((l) => !(l.id === id && l.workspace_id === workspaceId));
      if (doc.data.lists.length === before) return false;
      await doc.commit();
      return true;
    },
    // Subscribers of lists no longer in the document, a batch at a time.
    sweep: async () => {
      const kept = new Set(doc.data.lists.map((l) => l.id));
      const left = (await db.run((q) => q.selectFrom('subscribers').select('list_id').distinct().execute())).filter(
        (r) => !kept.has(r.list_id),
      );
      let removed = 0;
      for (const { list_id } of left) removed += await sweepSubscribers(db, list_id);
      return removed;
    },
  };

  const source: ListSource = {
    live: async (_q, workspaceId) => {
      doc.open();
      return new Map(doc.data.lists.filter((l) => l.workspace_id === workspaceId).map((l) => [l.id, l.name]));
    },
  };
  return { lists, source };
}
