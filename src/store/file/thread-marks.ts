// File store: what the team marked on its inbox threads (read, archived), in svc.json beside the
// other small aggregates. One record per thread ever marked; the index of inbox-index.ts holds no
// strings, so a listing asks for a workspace's marks as a map and matches them by thread id.
import type { ThreadState } from '../../model/inbox.js';
import type { DocFile } from './doc.js';

export interface ThreadMark extends ThreadState {
  workspace_id: string;
  thread_id: string;
}

export interface ThreadMarks {
  /** A workspace's marks by thread id. */
  of(workspaceId: string): Map<string, ThreadState>;
  /** One thread's marks. */
  get(workspaceId: string, threadId: string): ThreadState;
  /** Sets a thread's marks (a field left out is kept), durable on return. */
  set(workspaceId: string, threadId: string, patch: Partial<ThreadState>): Promise<void>;
}

export function fileThreadMarks(doc: DocFile): ThreadMarks {
  // Records by workspace, rebuilt when the list was replaced (load, a workspace's deletion).
  let indexed: { list: ThreadMark[]; length: number; byWs: Map<string, Map<string, ThreadMark>> } | null = null;
  const byWs = () => {
    const list = doc.data.inbox_threads;
    if (indexed?.list !== list || indexed.length !== list.length) {
      const m = new Map<string, Map<string, ThreadMark>>();
      for (const r of list) {
        let ws = m.get(r.workspace_id);
        if (!ws) m.set(r.workspace_id, (ws = new Map()));
        ws.set(r.thread_id, r);
      }
      indexed = { list, length: list.length, byWs: m };
    }
    return indexed.byWs;
  };
  return {
    of(workspaceId) {
      doc.open();
      const out = new Map<string, ThreadState>();
      for (const [id, r] of byWs().get(workspaceId) ?? []) out.set(id, { read_at: r.read_at, archived_at: r.archived_at });
      return out;
    },
    get(workspaceId, threadId) {
      doc.open();
      const r = byWs().get(workspaceId)?.get(threadId);
      return { read_at: r?.read_at ?? null, archived_at: r?.archived_at ?? null };
    },
    async set(workspaceId, threadId, patch) {
      doc.open();
      const r = byWs().get(workspaceId)?.get(threadId);
      if (r) {
        if (patch.read_at !== undefined) r.read_at = patch.read_at;
        if (patch.archived_at !== undefined) r.archived_at = patch.archived_at;
      } else
        doc.data.inbox_threads.push({
          workspace_id: workspaceId,
          thread_id: threadId,
          read_at: patch.read_at ?? null,
          archived_at: patch.archived_at ?? null,
        });
      // On a failed write commit() puts memory back to what the disk holds.
      await doc.commit();
    },
  };
}
