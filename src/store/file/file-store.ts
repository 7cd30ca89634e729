// The embedded file store. The small aggregates (workspaces, keys, and later domains, endpoints,
// lists) live in one lowdb document, svc.json, kept in memory with indexes and written through
// DurableJsonFile. High-volume records go to day-partitioned journals (journal.ts), so a write
// never re-serialises the whole store.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { SvcError } from '../../errors.js';
import type { Plan } from '../../workspaces/plans.js';
import { HISTORY_LIMIT } from '../types.js';
import type { Address, AddressStore, ApiKey, Domain, DomainStore, KeyOwner, KeyStore, Store, TlsIdentity, TlsStore, WebhookEndpoint, WebhookEndpointStore, WebhookStore, Workspace, WorkspaceStore } from '../types.js';
import { countLimitReached } from '../../workspaces/quota.js';
import { DurableJsonFile } from './durable-json.js';
import { StoreLock, unwritable, type LockRole } from './lock.js';
import { FileMailStore } from './mail-store.js';
import { fileWebhookStores } from './webhook-store.js';
import { DATA_FILE } from './check.js';
import { dataFileProblem } from './shapes.js';
import type { BadLine } from './journal.js';

export { DATA_FILE } from './check.js';

interface Doc {
  version: 1;
  workspaces: Workspace[];
  keys: ApiKey[];
  domains: Domain[];
  addresses: Address[];
  webhook_endpoints: WebhookEndpoint[];
  tls: TlsIdentity | null;
}

const emptyDoc = (): Doc => ({ version: 1, workspaces: [], keys: [], domains: [], addresses: [], webhook_endpoints: [], tls: null });

// Callers get copies, so nothing outside can change the in-memory state without a write. The
// records are plain JSON data; this is several times cheaper than structuredClone on Node 20.
function copy<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = copy(x);
  return out as T;
}

export class FileStore implements Store {
  readonly describe: string;
  readonly #db: Low<Doc>;
  readonly #adapter: DurableJsonFile<Doc>;
  readonly #lock: StoreLock;
  #wsById = new Map<string, Workspace>();
  #wsByName = new Map<string, Workspace>();
  #keyByHash = new Map<string, ApiKey>();
  #mail!: FileMailStore;
  #webhooks!: { endpoints: WebhookEndpointStore; webhooks: WebhookStore };
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
      store.#mail = await FileMailStore.open(dir);
      store.#webhooks = fileWebhookStores(
        {
          all: () => store.#db.data.webhook_endpoints,
          replace: (list) => {
            store.#db.data.webhook_endpoints = list;
          },
          commit: () => store.#commit(),
          open: () => store.#open(),
        },
        store.#mail,
      );
    } catch (e) {
      await lock.release();
      throw e;
    }
    return store;
  }

  get lock(): StoreLock {
    return this.#lock;
  }

  /** Journal lines skipped because they cannot be read (set aside in quarantine/). */
  get problems(): BadLine[] {
    return this.#mail.problems;
  }

  /** File writes made so far (grouping shows as fewer writes than calls). */
  get fileWrites(): number {
    return this.#adapter.writes;
  }

  async #load(): Promise<void> {
    await this.#db.read();
    const doc = this.#db.data;
    // Collections added after a store was created start empty.
    doc.domains ??= [];
    doc.addresses ??= [];
    doc.webhook_endpoints ??= [];
    doc.tls ??= null;
    const why = dataFileProblem(doc);
    if (why) throw new SvcError('store_corrupt', `data file ${join(this.dir, DATA_FILE)} is not a readable svc store (${why}); it was left untouched (svc store check)`);
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

  readonly domains: DomainStore = {
    create: async (d, limit) => {
      this.#open();
      if (!this.#wsById.has(d.workspace_id)) throw new SvcError('not_found', 'workspace not found');
      const mine = this.#db.data.domains.filter((x) => x.workspace_id === d.workspace_id);
      if (mine.some((x) => x.domain === d.domain)) throw new SvcError('conflict', `domain ${d.domain} is already in this workspace`);
      if (limit !== null && mine.length >= limit) throw countLimitReached('domains', limit, mine.length);
      const rec: Domain = {
        id: d.id,
        workspace_id: d.workspace_id,
        domain: d.domain,
        status: d.status,
        token: d.token,
        dkim_public_key: d.dkim_public_key,
        dkim_private_key: d.dkim_private_key,
        legacy: d.legacy,
        dkim_verified: d.dkim_verified,
        records: d.records,
        history: d.history,
        created_at: d.created_at,
        verified_at: d.verified_at,
        checked_at: d.checked_at,
      };
      this.#db.data.domains.push(rec);
      await this.#commit();
      return copy(rec);
    },
    listByWorkspace: async (workspaceId) => {
      this.#open();
      return copy(this.#db.data.domains.filter((d) => d.workspace_id === workspaceId));
    },
    listAll: async () => {
      this.#open();
      return copy(this.#db.data.domains);
    },
    get: async (workspaceId, domain) => {
      this.#open();
      const d = this.#db.data.domains.find((x) => x.workspace_id === workspaceId && x.domain === domain);
      return d ? copy(d) : null;
    },
    byId: async (id) => {
      this.#open();
      const d = this.#db.data.domains.find((x) => x.id === id);
      return d ? copy(d) : null;
    },
    verifiedBy: async (domain) => {
      this.#open();
      return this.#db.data.domains.find((x) => x.domain === domain && x.status === 'verified')?.workspace_id ?? null;
    },
    saveCheck: async (id, check) => {
      this.#open();
      const d = this.#db.data.domains.find((x) => x.id === id);
      if (!d) throw new SvcError('not_found', 'domain not found');
      if (check.verify && d.status !== 'verified') {
        const other = this.#db.data.domains.find((x) => x.domain === d.domain && x.status === 'verified' && x.id !== d.id);
        if (other) throw new SvcError('conflict', `domain ${d.domain} is already verified by another workspace`);
        d.status = 'verified';
        d.verified_at = check.checked_at;
      }
      d.records = check.records;
      d.history = [...d.history, ...check.changes].slice(-HISTORY_LIMIT);
      d.dkim_verified = check.dkim_verified;
      d.checked_at = check.checked_at;
      await this.#commit();
      return copy(d);
    },
    remove: async (workspaceId, id) => {
      this.#open();
      const before = this.#db.data.domains.length;
      this.#db.data.domains = this.#db.data.domains.filter((d) => !(d.id === id && d.workspace_id === workspaceId));
      if (this.#db.data.domains.length === before) return false;
      this.#db.data.addresses = this.#db.data.addresses.filter((a) => a.domain_id !== id);
      await this.#commit();
      return true;
    },
  };

  readonly addresses: AddressStore = {
    create: async (a, limit) => {
      this.#open();
      if (!this.#db.data.domains.some((d) => d.id === a.domain_id && d.workspace_id === a.workspace_id)) throw new SvcError('not_found', 'domain not found');
      const mine = this.#db.data.addresses.filter((x) => x.workspace_id === a.workspace_id);
      if (mine.some((x) => x.address === a.address)) throw new SvcError('conflict', `address ${a.address} is already registered`);
      if (limit !== null && mine.length >= limit) throw countLimitReached('addresses', limit, mine.length);
      const rec: Address = { id: a.id, workspace_id: a.workspace_id, domain_id: a.domain_id, address: a.address, status: a.status, created_at: a.created_at };
      this.#db.data.addresses.push(rec);
      await this.#commit();
      return copy(rec);
    },
    listByWorkspace: async (workspaceId) => {
      this.#open();
      return copy(this.#db.data.addresses.filter((a) => a.workspace_id === workspaceId));
    },
    get: async (workspaceId, address) => {
      this.#open();
      const a = this.#db.data.addresses.find((x) => x.workspace_id === workspaceId && x.address === address);
      return a ? copy(a) : null;
    },
    setStatus: async (workspaceId, id, status) => {
      this.#open();
      const a = this.#db.data.addresses.find((x) => x.workspace_id === workspaceId && x.id === id);
      if (!a) return null;
      if (a.status !== status) {
        a.status = status;
        await this.#commit();
      }
      return copy(a);
    },
    remove: async (workspaceId, id) => {
      this.#open();
      const before = this.#db.data.addresses.length;
      this.#db.data.addresses = this.#db.data.addresses.filter((a) => !(a.id === id && a.workspace_id === workspaceId));
      if (this.#db.data.addresses.length === before) return false;
      await this.#commit();
      return true;
    },
  };

  readonly tls: TlsStore = {
    get: async () => {
      this.#open();
      return this.#db.data.tls ? copy(this.#db.data.tls) : null;
    },
    saveIfAbsent: async (t) => {
      this.#open();
      if (!this.#db.data.tls) {
        this.#db.data.tls = { cert: t.cert, key: t.key, created_at: t.created_at };
        await this.#commit();
      }
      return copy(this.#db.data.tls!);
    },
  };

  get messages() {
    return this.#mail.messages;
  }
  get queue() {
    return this.#mail.queue;
  }
  get outbox() {
    return this.#mail.outbox;
  }
  get suppressions() {
    return this.#mail.suppressions;
  }
  get endpoints() {
    return this.#webhooks.endpoints;
  }
  get webhooks() {
    return this.#webhooks.webhooks;
  }
  get idempotency() {
    return this.#mail.idempotency;
  }
  get rateLimit() {
    return this.#mail.rateLimit;
  }
  get usage() {
    return this.#mail.usage;
  }

  async health(): Promise<void> {
    this.#open();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#adapter.settled();
    await this.#mail.close();
    await this.#lock.release();
  }
}
