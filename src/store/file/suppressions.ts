// File store: the suppression list, in a journal of its own (suppressions/all.jsonl): entries
// outlive the mail journal's days.
import type { Suppression } from '../../model/suppression.js';
import type { SuppressionStore } from '../port/suppressions.js';
import type { Journal } from './journal.js';
import type { Line, Replay } from './replay.js';
import { shape } from './shapes.js';

interface AddLine extends Line {
  t: 'add';
  s: Suppression;
}
interface RemoveLine extends Line {
  t: 'remove';
  workspace_id: string;
  address: string;
}

/** The line kinds of the suppression journal. */
export function suppressionLines(r: Replay): void {
  r.kind('add', (v) => {
    const why = shape({ s: 'o' })(v);
    if (why) return why;
    const s = shape({ workspace_id: 's', address: 's', reason: 's' })((v as { s: unknown }).s);
    return s && `s: ${s}`;
  });
  r.kind('remove', shape({ workspace_id: 's', address: 's' }));
}

const PARTITION = 'all';
const copySuppression = (s: Suppression): Suppression => ({ ...s });

export function fileSuppressions(
  log: Journal<Line>,
  replay: Replay,
  now: () => Date,
): { store: SuppressionStore; has(ws: string, address: string): boolean; forgetWorkspace(ws: string): number } {
  const byWorkspace = new Map<string, Map<string, Suppression>>();
  suppressionLines(replay);
  replay.on<AddLine>('add', (l) => {
    let ws = byWorkspace.get(l.s.workspace_id);
    if (!ws) byWorkspace.set(l.s.workspace_id, (ws = new Map()));
    if (!ws.has(l.s.address)) ws.set(l.s.address, l.s);
  });
  replay.on<RemoveLine>('remove', (l) => {
    byWorkspace.get(l.workspace_id)?.delete(l.address);
  });
  const write = async (line: Line): Promise<void> => {
    await log.append(PARTITION, [line]);
    replay.apply(line);
  };

  const store: SuppressionStore = {
    list: async (workspaceId) => [...(byWorkspace.get(workspaceId)?.values() ?? [])].map(copySuppression),
    add: async (s) => {
      const existing = byWorkspace.get(s.workspace_id)?.get(s.address);
      if (existing) return copySuppression(existing);
      const line: AddLine = { t: 'add', at: now().toISOString(), s: copySuppression(s) };
      await write(line);
      return copySuppression(s);
    },
    remove: async (workspaceId, address) => {
      if (!byWorkspace.get(workspaceId)?.has(address)) return false;
      const line: RemoveLine = { t: 'remove', at: now().toISOString(), workspace_id: workspaceId, address };
      await write(line);
      return true;
    },
    find: async (workspaceId, addresses) => {
      const ws = byWorkspace.get(workspaceId);
      return ws ? addresses.flatMap((a) => (ws.has(a) ? [copySuppression(ws.get(a)!)] : [])) : [];
    },
  };
  return {
    store,
    has: (ws, address) => byWorkspace.get(ws)?.has(address) ?? false,
    /** A deleted workspace's list leaves memory (its lines leave the journal at the next open). */
    forgetWorkspace: (ws) => {
      const n = byWorkspace.get(ws)?.size ?? 0;
      byWorkspace.delete(ws);
      return n;
    },
  };
}
