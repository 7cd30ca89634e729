// The embedded store as it is being moved onto SQLite: the control plane in svc.json (the lowdb
// document, file/doc.ts and its aggregates' files) and the data plane in svc.db through the shared
// query source (src/store/sql/), the same code the Postgres backend runs. The groups whose
// operations are not on the shared source yet are absent here, so that this store is driven by
// the conformance suites of the groups it has and is not offered as a --store until it has them all.
import type { StoreGroups } from '../types.js';
import { openDataFile, type DataFile } from '../file/doc-store.js';
import type { LockRole } from '../file/lock.js';
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
import { openSqlite, type SqliteFile } from './database.js';

/** The groups this store has so far. */
export type SqliteGroups = Exclude<keyof StoreGroups, 'lists' | 'subscribers' | 'campaigns' | 'sequences' | 'backup'>;

// The groups are assembled in the constructor; the interface gives the class their types.
export interface SqliteStore extends Pick<StoreGroups, SqliteGroups> {}

export class SqliteStore {
  readonly describe: string;

  private constructor(
    dir: string,
    readonly data: DataFile,
    readonly file: SqliteFile,
  ) {
    this.describe = `file:${dir}`;
    const { doc, box } = data;
    const eps = docEndpoints(doc, file.db);
    // A deleted workspace: at once its endpoints go (with their jobs) and its queued mail is not
    // handed off; at its purge what it left in svc.db goes.
    const endpointsGone = async (wsId: string): Promise<number> => {
      let n = 0;
      for (const e of doc.data.webhook_endpoints.filter((x) => x.workspace_id === wsId)) if (await eps.endpoints.remove(wsId, e.id)) n++;
      return n;
    };
    const groups: Pick<StoreGroups, SqliteGroups> = {
      workspaces: fileWorkspaces(doc, {
        end: async (wsId) => {
          await endWorkspace(file.db, wsId);
          await endpointsGone(wsId);
        },
        forget: async (wsId) => (await purgeWorkspace(file.db, wsId)) + (await endpointsGone(wsId)),
      }),
      endpoints: eps.endpoints,
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
  static async open(dir: string, role: LockRole, opts: { encryptionKey?: Buffer; command?: string } = {}): Promise<SqliteStore> {
    const data = await openDataFile(dir, role, opts);
    try {
      return new SqliteStore(dir, data, openSqlite(dir));
    } catch (e) {
      await data.lock.release();
      throw e;
    }
  }

  async health(): Promise<void> {
    this.data.doc.open();
    await this.file.db.run(async (q) => void (await q.selectNoFrom((e) => e.lit(1).as('one')).execute()));
  }

  async close(): Promise<void> {
    await this.data.doc.close();
    await this.file.close();
    await this.data.lock.release();
  }
}
