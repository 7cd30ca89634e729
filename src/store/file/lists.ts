// File store: newsletter lists and subscribers. Lists are few and live in svc.json; subscribers are
// high-volume and live in their own journal (subscribers/), one partition per list (its id), one
// line per version of a subscriber (`sub`, naming its ordinal in the list) and one per removal
// (`sub_gone`): a write appends one line and rewrites nothing. Memory holds only the compact index
// of subscriber-index.ts; a subscriber is read from its latest line. Removing a list drops its
// partition at once (a partition left by a crash between the two is dropped at the next open).
// Writes of one workspace run one at a time, so the email look-up and the contacts count of a
// subscribe hold until its line is written.
//
// The subscribers journal is read on first use, not when the store opens: an admin command that
// never touches lists (`svc messages list`) would otherwise read every subscriber of every list
// (seconds on a store with a few hundred thousand). The daemon reads it at its start (load()).
import { SvcError } from '../../errors.js';
import type { List, Subscriber, SubscriberUpdate } from '../../model/list.js';
import type { CountLimit } from '../../model/quota.js';
import type { CountLimitRefusal } from '../../model/refusal.js';
import type { ListStore, SubscriberStore } from '../port/lists.js';
import { copy, type DocFile } from './doc.js';
import type { Journal, LineAt } from './journal.js';
import type { Line, Replay } from './replay.js';
import { shape } from './shapes.js';
import { SubscriberIndex, type LinePlace } from './subscriber-index.js';

interface SubLine extends Line, Subscriber {
  t: 'sub';
  /** The subscriber's ordinal in its list (a new one takes the next). */
  k: number;
}
interface GoneLine extends Line {
  t: 'sub_gone';
  k: number;
  id: string;
}

/** The subscribers journal's line kinds (the journal validates its lines with it). */
export function subscriberLines(r: Replay): void {
  r.kind(
    'sub',
    shape({ at: 's', k: 'n', id: 's', list_id: 's', workspace_id: 's', email: 's', status: 's', unsubscribe_token: 's', tags: 'a' }),
  ).kind('sub_gone', shape({ at: 's', k: 'n', id: 's' }));
}

const placeOf = (at: LineAt): LinePlace => ({ segment: at.segment ?? 0, offset: at.offset });
const recordOf = (line: SubLine): Subscriber => {
  const { t: _t, at: _at, k: _k, ...s } = line;
  return s;
};

export interface FileLists {
  lists: ListStore;
  subscribers: SubscriberStore;
  /**
   * Reads the subscribers journal (after svc.json) unless it was read already: every list's
   * partition, dropping those of lists gone. Every list and subscriber operation waits for it.
   */
  load(): Promise<void>;
}

/**
 * `loaded`: told once the journal is read (its unreadable lines are then known and set aside).
 */
export function fileLists(
  doc: DocFile,
  journal: Journal<Line>,
  replay: Replay,
  loaded: () => Promise<unknown> = async () => {},
): FileLists {
  const index = new SubscriberIndex();
  /** Removed lists whose subscribers are still leaving the index (contacts are counted after them). */
  const drops = new Set<Promise<void>>();
  const dropped = () => Promise.all(drops);
  /** Per workspace: the end of the chain of its writes. */
  const chains = new Map<string, Promise<unknown>>();
  let reading: Promise<void> | null = null;
  const load = (): Promise<void> =>
    (reading ??= (async () => {
      const live = new Set(doc.data.lists.map((l) => l.id));
      for (const listId of await journal.partitions()) {
        if (!live.has(listId)) await journal.drop(listId);
        else await journal.each(listId, (line, at) => replay.apply(line, at));
      }
      await loaded();
    })());
  /** The same operations, each once the journal is read. */
  const whenRead = <T extends object>(ops: T): T =>
    Object.fromEntries(
      Object.entries(ops).map(([name, fn]: [string, (...args: unknown[]) => Promise<unknown>]) => [
        name,
        async (...args: unknown[]) => (await load(), fn(...args)),
      ]),
    ) as T;
  const serial = <T>(workspaceId: string, fn: () => Promise<T>): Promise<T> => {
    const run = (chains.get(workspaceId) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => {});
    chains.set(workspaceId, tail);
    void tail.then(() => chains.get(workspaceId) === tail && chains.delete(workspaceId));
    return run;
  };

  replay.on<SubLine>('sub', (line, at) => {
    const n = index.atOrdinal(line.list_id, line.k);
    if (n !== undefined) index.update(n, placeOf(at!), line.status);
    else if (line.k === index.nextOrdinal(line.list_id)) index.add(line, placeOf(at!));
  });
  replay.on<GoneLine>('sub_gone', (line, at) => {
    const n = index.atOrdinal(at!.partition, line.k);
    if (n !== undefined) index.remove(n);
  });

  const read = async (n: number): Promise<Subscriber | null> => {
    const line = (await journal.recordFrom({ partition: index.listOf(n), ...index.where(n) })) as SubLine | null;
    return line && recordOf(line);
  };
  /** The first of these whose record passes `is` (a hash found them; the line says). */
  const confirm = async (ns: number[], is: (s: Subscriber) => boolean): Promise<{ n: number; s: Subscriber } | null> => {
    for (const n of ns) {
      const s = await read(n);
      if (s && is(s)) return { n, s };
    }
    return null;
  };
  const listOf = (workspaceId: string, id: string) => doc.data.lists.find((l) => l.id === id && l.workspace_id === workspaceId);
  const counted = (l: List) => ({ ...copy(l), subscriber_count: index.count(l.id) });
  /** Writes a new version of subscriber `n` and moves the index to it. */
  const write = async (n: number, s: Subscriber): Promise<void> => {
    const line: SubLine = { t: 'sub', at: s.updated_at, k: index.ordinal(n), ...s };
    const at = await journal.appendLocated(s.list_id, line);
    index.update(n, placeOf(at), s.status);
  };

  /**
   * One subscribe or many (an import), in one write: those already on the list updated (name; tags
   * when given; status kept), the others added, refused whole past `limit` contacts. Run in the
   * workspace's turn (serial).
   */
  const upsertRows = async (
    workspaceId: string,
    listId: string,
    rows: Array<{ s: Subscriber; update: SubscriberUpdate }>,
    limit: CountLimit,
  ): Promise<{ records: Subscriber[]; created: boolean[] } | CountLimitRefusal> => {
    doc.open();
    if (!listOf(workspaceId, listId)) throw new SvcError('not_found', 'list not found');
    // Those already on the list, confirmed on disk (only where a hash says they may be).
    const had = await Promise.all(rows.map(({ s }) => confirm(index.byEmail(listId, s.email), (x) => x.email === s.email)));
    if (limit !== null) {
      await dropped();
      const fresh = new Set(rows.filter((r, i) => !had[i] && !index.hasContact(workspaceId, r.s.email)).map((r) => r.s.email));
      const used = index.contacts(workspaceId);
      if (used + fresh.size > limit) return { refused: 'count_limit', kind: 'contacts', limit, used };
    }
    let next = index.nextOrdinal(listId);
    const records = rows.map(({ s, update }, i): Subscriber => {
      const h = had[i];
      return h ? { ...h.s, name: update.name, tags: update.tags ?? h.s.tags, updated_at: update.updated_at } : copy(s);
    });
    const lines = records.map((s, i): SubLine => ({ t: 'sub', at: s.updated_at, k: had[i] ? index.ordinal(had[i]!.n) : next++, ...s }));
    const at = await journal.appendAllLocated(listId, lines);
    records.forEach((s, i) => {
      const h = had[i];
      if (h) index.update(h.n, placeOf(at[i]!), s.status);
      else index.add(s, placeOf(at[i]!));
    });
    return { records, created: had.map((h) => !h) };
  };

  const lists: ListStore = {
    create: async (l) => {
      doc.open();
      const rec = copy(l);
      doc.data.lists.push(rec);
      await doc.commit();
      return counted(rec);
    },
    listByWorkspace: async (workspaceId) => {
      doc.open();
      return doc.data.lists.filter((l) => l.workspace_id === workspaceId).map(counted);
    },
    get: async (workspaceId, id) => {
      doc.open();
      const l = listOf(workspaceId, id);
      return l ? counted(l) : null;
    },
    update: async (workspaceId, id, patch, at) => {
      doc.open();
      const l = listOf(workspaceId, id);
      if (!l) return null;
      for (const [k, v] of Object.entries(patch)) if (v !== undefined) (l as unknown as Record<string, unknown>)[k] = v;
      l.updated_at = at;
      await doc.commit();
      return counted(l);
    },
    remove: async (workspaceId, id) =>
      serial(workspaceId, async () => {
        doc.open();
        const before = doc.data.lists.length;
        doc.data.lists = doc.data.lists.filter((l) => !(l.id === id && l.workspace_id === workspaceId));
        if (doc.data.lists.length === before) return false;
        await doc.commit();
        const drop = index.dropList(id);
        drops.add(drop);
        void drop.finally(() => drops.delete(drop));
        await journal.drop(id);
        return true;
      }),
    // A list's partition goes with it: nothing is left behind.
    sweep: async () => 0,
  };

  const subscribers: SubscriberStore = {
    upsert: async (s, update, limit) =>
      serial(s.workspace_id, async () => {
        const r = await upsertRows(s.workspace_id, s.list_id, [{ s, update }], limit);
        return 'refused' in r ? r : { subscriber: r.records[0]!, created: r.created[0]! };
      }),
    upsertMany: async (workspaceId, listId, rows, limit) =>
      serial(workspaceId, async () => {
        const r = await upsertRows(workspaceId, listId, rows, limit);
        if ('refused' in r) return r;
        const created = r.created.filter(Boolean).length;
        return { created, updated: rows.length - created };
      }),
    newContacts: async (workspaceId, emails) => (await dropped(), emails.filter((e) => !index.hasContact(workspaceId, e)).length),
    list: async (workspaceId, listId, q) => {
      doc.open();
      if (!listOf(workspaceId, listId)) return { data: [], total: 0 };
      const page = index.page(listId, q.status, q.offset, q.limit);
      const data = await Promise.all(page.items.map(read));
      return { data: data.filter((s): s is Subscriber => s !== null), total: page.total };
    },
    get: async (workspaceId, listId, id) => {
      doc.open();
      if (!listOf(workspaceId, listId)) return null;
      return (await confirm(index.byId(listId, id), (x) => x.id === id))?.s ?? null;
    },
    active: async (workspaceId, refs) => {
      doc.open();
      const out = new Set<string>();
      for (const r of refs) {
        if (!listOf(workspaceId, r.list_id)) continue;
        const found = await confirm(index.byId(r.list_id, r.id), (x) => x.id === r.id);
        if (found?.s.status === 'active') out.add(r.id);
      }
      return out;
    },
    idsWithPrefix: async (workspaceId, listId, prefix, limit) => {
      doc.open();
      if (!listOf(workspaceId, listId)) return [];
      const ids: string[] = [];
      for (const n of index.withPrefix(listId, prefix)) {
        if (ids.length >= limit) break;
        const s = await read(n);
        if (s?.id.startsWith(prefix)) ids.push(s.id);
      }
      return ids;
    },
    lastPosition: async (workspaceId, listId) => {
      doc.open();
      return listOf(workspaceId, listId) ? index.nextOrdinal(listId) : 0;
    },
    activeAfter: async (workspaceId, listId, cursor, limit) => {
      doc.open();
      if (!listOf(workspaceId, listId)) return { data: [], cursor, done: true };
      const page = index.activeAfter(listId, cursor, limit);
      const data = await Promise.all(page.items.map(read));
      return { data: data.filter((s): s is Subscriber => s !== null && s.status === 'active'), cursor: page.cursor, done: page.done };
    },
    byToken: async (token) => {
      const s = (await confirm(index.byToken(token), (x) => x.unsubscribe_token === token))?.s;
      const l = s && listOf(s.workspace_id, s.list_id);
      return s && l ? { subscriber: s, list: l.name } : null;
    },
    setStatus: async (workspaceId, listId, id, status, at) =>
      serial(workspaceId, async () => {
        doc.open();
        if (!listOf(workspaceId, listId)) return null;
        const had = await confirm(index.byId(listId, id), (x) => x.id === id);
        if (!had) return null;
        if (had.s.status === status) return had.s;
        const next: Subscriber = { ...had.s, status, updated_at: at };
        await write(had.n, next);
        return next;
      }),
    confirmSent: async (workspaceId, listId, id, at) =>
      serial(workspaceId, async () => {
        doc.open();
        if (!listOf(workspaceId, listId)) return null;
        const had = await confirm(index.byId(listId, id), (x) => x.id === id);
        if (!had) return null;
        const next: Subscriber = { ...had.s, confirm_sent_at: at };
        await write(had.n, next);
        return next;
      }),
    remove: async (workspaceId, listId, id) =>
      serial(workspaceId, async () => {
        doc.open();
        if (!listOf(workspaceId, listId)) return false;
        const had = await confirm(index.byId(listId, id), (x) => x.id === id);
        if (!had) return false;
        const line: GoneLine = { t: 'sub_gone', at: new Date().toISOString(), k: index.ordinal(had.n), id };
        await journal.append(listId, [line]);
        index.remove(had.n);
        return true;
      }),
    contacts: async (workspaceId) => (await dropped(), index.contacts(workspaceId)),
  };

  return { lists: whenRead(lists), subscribers: whenRead(subscribers), load };
}
