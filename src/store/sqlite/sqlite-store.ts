// The embedded store: the control plane in svc.json (the lowdb document, file/doc.ts and its
// aggregates' files: workspaces, keys, domains, addresses, webhook endpoints, people, lists'
// settings, the TLS identity, secrets), rarely written and readable by a person, and the data plane
// in svc.db, SQLite, through the shared query source (src/store/sql/), the same code the Postgres
// backend runs. One process owns the directory at a time (its lock, file/lock.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../../errors.js';
import type { Store, StoreGroups } from '../types.js';
import { takeSnapshot } from './snapshot.js';
import { openDataFile, type DataFile } from '../file/doc-store.js';
import type { LockRole, StoreLock } from '../file/lock.js';
import { fileKeys } from '../file/keys.js';
import { fileWorkspaces } from '../file/workspaces.js';
import { endWorkspace, purgeWorkspace } from '../sql/workspaces.js';
import { fileDomains } from '../file/domains.js';
import { fileAddresses } from '../file/addresses.js';
import { filePeople } from '../file/people.js';
import { fileTls } from '../file/tls.js';
import { fileSecrets } from '../file/secrets.js';
import { sqlSuppressions } from '../sql/suppressions.js';
import { sqlDaemons } from '../sql/daemons.js';
import { sqlRateLimit } from '../sql/rate-limit.js';
import { sqlMessages } from '../sql/messages.js';
import { sqlQueue } from '../sql/queue.js';
import { sqlIdempotency } from '../sql/idempotency.js';
import { sqlTracking } from '../sql/tracking.js';
import { sqlInbox } from '../sql/inbox.js';
import { sqlWebhooks } from '../sql/webhooks.js';
import { docEndpoints } from './endpoints.js';
import { docLists } from './lists.js';
import { sqlSubscribers } from '../sql/subscribers.js';
import { sqlCampaigns } from '../sql/campaigns.js';
import { sqlSequences } from '../sql/sequences.js';
import { openSqlite, type SqliteFile } from './database.js';

/** The groups this store has so far. */

// The groups are assembled in the constructor; the interface gives the class their types.
export interface SqliteStore extends StoreGroups {}

/** The journal folders of the development builds' store format. */
const JOURNALS = ['mail', 'suppressions', 'inbox', 'subscribers', 'campaigns', 'sequences'];

export class SqliteStore implements Store {
  readonly describe: string;
  #closed = false;

  private constructor(
    dir: string,
    readonly data: DataFile,
    readonly file: SqliteFile,
  ) {
    this.describe = `file:${dir}`;
    const { doc, box } = data;
    const eps = docEndpoints(doc, file.db);
    const lists = docLists(doc, file.db);
    // A deleted workspace: at once its endpoints go (with their jobs) and its queued mail is not
    // handed off; at its purge what it left in svc.db goes.
    const endpointsGone = async (wsId: string): Promise<number> => {
      let n = 0;
      for (const e of doc.data.webhook_endpoints.filter((x) => x.workspace_id === wsId)) if (await eps.endpoints.remove(wsId, e.id)) n++;
      return n;
    };
    const groups: StoreGroups = {
      backup: { snapshot: (out) => takeSnapshot(file.raw, () => JSON.stringify(doc.data), out) },
      workspaces: fileWorkspaces(doc, {
        end: async (wsId) => {
          await endWorkspace(file.db, wsId);
          await endpointsGone(wsId);
        },
        forget: async (wsId) => {
          let n = (await purgeWorkspace(file.db, wsId)) + (await endpointsGone(wsId));
          for (const l of doc.data.lists.filter((x) => x.workspace_id === wsId)) if (await lists.lists.remove(wsId, l.id)) n++;
          return n;
        },
      }),
      endpoints: eps.endpoints,
      lists: lists.lists,
      subscribers: sqlSubscribers(file.db, lists.source),
      campaigns: sqlCampaigns(file.db),
      sequences: sqlSequences(file.db),
      webhooks: sqlWebhooks(file.db, eps.source),
      keys: fileKeys(doc),
      domains: fileDomains(doc, box),
      addresses: fileAddresses(doc),
      people: filePeople(doc),
      tls: fileTls(doc, box),
      secrets: fileSecrets(doc, box),
      suppressions: sqlSuppressions(file.db),
      daemons: sqlDaemons(file.db),
      rateLimit: sqlRateLimit(file.db),
      ...sqlMessages(file.db),
      ...sqlQueue(file.db),
      idempotency: sqlIdempotency(file.db),
      tracking: sqlTracking(file.db),
      inbox: sqlInbox(file.db),
    };
    Object.assign(this, groups);
  }

  /** Takes the directory's lock, reads svc.json and opens svc.db beside it. */
  static async open(
    dir: string,
    role: LockRole,
    opts: { encryptionKey?: Buffer; command?: string; data?: DataFile } = {},
  ): Promise<SqliteStore> {
    const data = opts.data ?? (await openDataFile(dir, role, opts));
    // 0.1.0 was never released: the journals of its development builds are not read, nor converted.
    const old = JOURNALS.find((j) => existsSync(join(dir, j)));
    if (old) {
      await data.lock.release();
      throw new SvcError(
        'store_corrupt',
        `${dir} holds a store in the journal format of svc's development builds (${old}/), which this svc does not read: make a new store with svc init`,
      );
    }
    try {
      // The daemon's statements run in a thread of their own; a command's on its own thread.
      const file = openSqlite(dir, { thread: role === 'serve' });
      // Whoever held leases before this process took the lock is gone (one process owns the store):
      // their jobs are free at once, not when their leases would have run out.
      if (role === 'serve')
        file.raw.exec(`UPDATE outbound_jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL;
                       UPDATE webhook_jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL;
                       UPDATE enrolments SET lease_owner = NULL, lease_until = NULL WHERE lease_owner IS NOT NULL;`);
      return new SqliteStore(dir, data, file);
    } catch (e) {
      await data.lock.release();
      throw e;
    }
  }

  async health(): Promise<void> {
    this.data.doc.open();
    await this.file.db.run(async (q) => void (await q.selectNoFrom((e) => e.lit(1).as('one')).execute()));
  }

  get lock(): StoreLock {
    return this.data.lock;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.data.doc.close();
    await this.file.close();
    await this.data.lock.release();
  }
}
