// The embedded file store. The small aggregates (workspaces, keys, and later domains, endpoints,
// lists) live in one lowdb document, svc.json, kept in memory with indexes and written through
// DurableJsonFile. High-volume records go to day-partitioned journals (journal.ts), so a write
// never re-serialises the whole store.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { SvcError } from '../../errors.js';
import type { Plan } from '../../workspaces/plans.js';
import type { ApiKey, KeyOwner, KeyStore, Store, Workspace, WorkspaceStore } from '../types.js';
import { DurableJsonFile } from './durable-json.js';
import { StoreLock, unwritable, type LockRole } from './lock.js';

export const DATA_FILE = 'svc.json';

interface Doc {
  version: 1;
  workspaces: Workspace[];
  keys: ApiKey[];
}

const emptyDoc = (): Doc => ({ version: 1, workspaces: [], keys: [] });

// Callers get copies, so nothing outside can change the in-memory state without a write.
const copy = <T>(v: T): T => structuredClone(v);

export class FileStore implements Store {
  readonly describe: string;
  readonly #db: Low<Doc>;
  readonly #adapter: DurableJsonFile<Doc>;
  readonly #lock: StoreLock;
  #wsById = new Map<string, Workspace>();
  #wsByName = new Map<string, Workspace>();
  #keyByHash = new Map<string, ApiKey>();
  #closed = false;

  private constructor(
    readonly dir: string,
    adapter: DurableJsonFile<Doc>,
    lock: StoreLock,
  ) {
    this.describe = `file:${dir}`;
    this.#adapter = adapter;
    this.#db = new Low(adapter, emptyDoc());
    this.#lock = lock;
  }

  /** Takes the directory's lock and loads it; throws LockHeldError when another process owns it. */
  static async open(dir: string, role: LockRole): Promise<FileStore> {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw unwritable(dir, e);
    }
    const lock = await StoreLock.acquire(dir, role);
    const store = new FileStore(dir, new DurableJsonFile<Doc>(join(dir, DATA_FILE)), lock);
    try {
      await store.#load();
    } catch (e) {
      await lock.release();
      throw e;
    }
    return store;
  }

  get lock(): StoreLock {
    return this.#lock;
  }

  /** File writes made so far (grouping shows as fewer writes than calls). */
  get fileWrites(): number {
    return this.#adapter.writes;
  }

  async #load(): Promise<void> {
    await this.#db.read();
    const doc = this.#db.data;
    if (doc.version !== 1 || !Array.isArray(doc.workspaces) || !Array.isArray(doc.keys)) {
      throw new SvcError('store_corrupt', `data file ${join(this.dir, DATA_FILE)} is not an svc store (version ${String(doc.version)}); it was left untouched`);
    }
    this.#wsById = new Map(doc.workspaces.map((w) => [w.id, w]));
    this.#wsByName = new Map(doc.workspaces.map((w) => [w.name, w]));
    this.#keyByHash = new Map(doc.keys.map((k) => [k.hash, k]));
  }

  /**
   * Applies a change in memory and resolves once it is on disk. If the write fails, memory is put
   * back to what the disk holds, so a caller never sees a change that was not kept.
   */
  async #commit(): Promise<void> {
    try {
      await this.#db.write();
    } catch (e) {
      await this.#load().catch(() => {});
      throw new SvcError('store_unavailable', `cannot write ${join(this.dir, DATA_FILE)}: ${(e as Error).message}`, { cause: e });
    }
  }

  #open(): void {
    if (this.#closed) throw new SvcError('store_unavailable', 'store is closed');
  }

  readonly workspaces: WorkspaceStore = {
    create: async (ws) => {
      this.#open();
      if (this.#wsByName.has(ws.name)) throw new SvcError('conflict', `workspace '${ws.name}' already exists`);
      const rec: Workspace = { id: ws.id, name: ws.name, plan: ws.plan, created_at: ws.created_at };
      this.#db.data.workspaces.push(rec);
      this.#wsById.set(rec.id, rec);
      this.#wsByName.set(rec.name, rec);
      await this.#commit();
      return copy(rec);
    },
    list: async () => {
      this.#open();
      return copy(this.#db.data.workspaces);
    },
    getByName: async (name) => {
      this.#open();
      const ws = this.#wsByName.get(name);
      return ws ? copy(ws) : null;
    },
    setPlan: async (id: string, plan: Plan) => {
      this.#open();
      const ws = this.#wsById.get(id);
      if (!ws) return null;
      ws.plan = plan;
      await this.#commit();
      return copy(ws);
    },
  };

  readonly keys: KeyStore = {
    create: async (key) => {
      this.#open();
      if (!this.#wsById.has(key.workspace_id)) throw new SvcError('not_found', 'workspace not found');
      if (this.#keyByHash.has(key.hash)) throw new SvcError('conflict', 'key already exists');
      const rec: ApiKey = {
        id: key.id,
        workspace_id: key.workspace_id,
        name: key.name,
        scopes: [...key.scopes],
        prefix: key.prefix,
        hash: key.hash,
        created_at: key.created_at,
        revoked_at: key.revoked_at,
      };
      this.#db.data.keys.push(rec);
      this.#keyByHash.set(rec.hash, rec);
      await this.#commit();
      return copy(rec);
    },
    listByWorkspace: async (workspaceId) => {
      this.#open();
      return copy(this.#db.data.keys.filter((k) => k.workspace_id === workspaceId));
    },
    findByHash: async (hash): Promise<KeyOwner | null> => {
      this.#open();
      const key = this.#keyByHash.get(hash);
      const workspace = key && this.#wsById.get(key.workspace_id);
      return key && workspace ? { key: copy(key), workspace: copy(workspace) } : null;
    },
    revoke: async (workspaceId, id, at) => {
      this.#open();
      const key = this.#db.data.keys.find((k) => k.id === id && k.workspace_id === workspaceId);
      if (!key) return null;
      if (key.revoked_at === null) {
        key.revoked_at = at;
        await this.#commit();
      }
      return copy(key);
    },
  };

  async health(): Promise<void> {
    this.#open();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#adapter.settled();
    await this.#lock.release();
  }
}
