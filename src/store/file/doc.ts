// svc.json: the small aggregates (workspaces, keys, domains, addresses, webhook endpoints, lists,
// the TLS identity) in one lowdb document, kept in memory with its indexes and written through
// DurableJsonFile. Each aggregate's file (workspaces.ts, keys.ts, ...) works on it through this.
import { join } from 'node:path';
import { Low } from 'lowdb';
import { SvcError } from '../../errors.js';
import type { Address } from '../../model/address.js';
import type { ApiKey } from '../../model/key.js';
import type { Domain } from '../../model/domain.js';
import type { List } from '../../model/list.js';
import type { Account, Membership, Session, SignInLink } from '../../model/person.js';
import type { TlsIdentity } from '../../model/tls.js';
import type { TrialWarnings } from '../port/workspaces.js';
import type { WebhookEndpoint } from '../../model/webhook.js';
import type { Workspace, WorkspaceDeletion } from '../../model/workspace.js';
import { DurableJsonFile } from './durable-json.js';
import { dataFileProblem } from './shapes.js';
import { DATA_FILE } from '../location.js';

export { DATA_FILE };

export interface Doc {
  version: 1;
  workspaces: Workspace[];
  keys: ApiKey[];
  domains: Domain[];
  addresses: Address[];
  webhook_endpoints: WebhookEndpoint[];
  /** Newsletter lists (their subscribers are in the subscribers journal: lists.ts). */
  lists: List[];
  tls: TlsIdentity | null;
  /** The service's own shared secrets by name (secrets.ts). */
  secrets: Record<string, string>;
  /** People (people.ts). */
  accounts: Account[];
  memberships: Membership[];
  signin_links: SignInLink[];
  sessions: Session[];
  /** Trial workspaces' warnings sent, by workspace id (workspaces.ts). */
  trials: Record<string, TrialWarnings>;
  /** Workspaces marked deleted whose data is not removed yet, by id, with the purge's holder (workspaces.ts). */
  deletions: Record<string, DeletionRecord>;
}

export interface DeletionRecord extends WorkspaceDeletion {
  owner: string | null;
  claimed_at: string | null;
}

const emptyDoc = (): Doc => ({
  version: 1,
  workspaces: [],
  keys: [],
  domains: [],
  addresses: [],
  webhook_endpoints: [],
  lists: [],
  tls: null,
  secrets: {},
  accounts: [],
  memberships: [],
  signin_links: [],
  sessions: [],
  trials: {},
  deletions: {},
});

// Callers get copies, so nothing outside can change the in-memory state without a write. The
// records are plain JSON data; this is several times cheaper than structuredClone on Node 20.
export function copy<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = copy(x);
  return out as T;
}

export class DocFile {
  readonly #db: Low<Doc>;
  readonly #adapter: DurableJsonFile<Doc>;
  wsById = new Map<string, Workspace>();
  wsByName = new Map<string, Workspace>();
  keyByHash = new Map<string, ApiKey>();
  #closed = false;

  constructor(readonly dir: string) {
    this.#adapter = new DurableJsonFile<Doc>(join(dir, DATA_FILE));
    this.#db = new Low(this.#adapter, emptyDoc());
  }

  /** The live document (aggregates change it, then commit). */
  get data(): Doc {
    return this.#db.data;
  }

  /** File writes made so far (grouping shows as fewer writes than calls). */
  get writes(): number {
    return this.#adapter.writes;
  }

  async load(): Promise<void> {
    await this.#db.read();
    const doc = this.#db.data;
    // Collections added after a store was created start empty.
    doc.domains ??= [];
    doc.addresses ??= [];
    doc.webhook_endpoints ??= [];
    doc.lists ??= [];
    doc.tls ??= null;
    doc.secrets ??= {};
    doc.accounts ??= [];
    doc.memberships ??= [];
    doc.signin_links ??= [];
    doc.sessions ??= [];
    doc.trials ??= {};
    doc.deletions ??= {};
    const why = dataFileProblem(doc);
    if (why)
      throw new SvcError(
        'store_corrupt',
        `data file ${join(this.dir, DATA_FILE)} is not a readable svc store (${why}); it was left untouched (svc store check)`,
      );
    this.wsById = new Map(doc.workspaces.map((w) => [w.id, w]));
    this.wsByName = new Map(doc.workspaces.map((w) => [w.name, w]));
    this.keyByHash = new Map(doc.keys.map((k) => [k.hash, k]));
  }

  /**
   * Resolves once the change made in memory is on disk. If the write fails, memory is put back to
   * what the disk holds, so a caller never sees a change that was not kept.
   */
  async commit(): Promise<void> {
    try {
      await this.#db.write();
    } catch (e) {
      await this.load().catch(() => {});
      throw new SvcError('store_unavailable', `cannot write ${join(this.dir, DATA_FILE)}: ${(e as Error).message}`, { cause: e });
    }
  }

  /**
   * The registrations of an address in every workspace (the MX's RCPT look-up), from an index
   * rebuilt when the list changed: aggregates only ever push onto it or replace it (filter, load),
   * so its identity and length say when. Status changes are made in place on the same records.
   */
  addressesNamed(address: string): readonly Address[] {
    const list = this.data.addresses;
    if (this.#addressIndex?.list !== list || this.#addressIndex.length !== list.length) {
      const byName = new Map<string, Address[]>();
      for (const a of list) {
        const same = byName.get(a.address);
        if (same) same.push(a);
        else byName.set(a.address, [a]);
      }
      this.#addressIndex = { list, length: list.length, byName };
    }
    return this.#addressIndex.byName.get(address) ?? [];
  }
  #addressIndex: { list: Address[]; length: number; byName: Map<string, Address[]> } | null = null;

  /** Throws once the store is closed. */
  open(): void {
    if (this.#closed) throw new SvcError('store_unavailable', 'store is closed');
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#adapter.settled();
  }
}
