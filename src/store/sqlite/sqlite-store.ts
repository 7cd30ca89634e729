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
import { purgeWorkspace } from '../sql/workspaces.js';
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
import { openSqlite, type SqliteFile } from './database.js';

/** The groups on SQLite so far, beside the document's. */
export type SqliteGroups =
  | 'workspaces'
  | 'keys'
  | 'domains'
  | 'addresses'
  | 'people'
  | 'tls'
  | 'secrets'
  | 'suppressions'
  | 'daemons'
  | 'rateLimit'
  | 'messages'
  | 'usage'
  | 'queue'
  | 'outbox'
  | 'idempotency'
  | 'tracking'
  | 'inbox';

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
    const groups: Pick<StoreGroups, SqliteGroups> = {
      workspaces: fileWorkspaces(doc, {
        // What a deleted workspace leaves on SQLite goes at its purge, in one statement per table.
        end: async () => {},
        forget: (wsId) => purgeWorkspace(file.db, wsId),
      }),
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
