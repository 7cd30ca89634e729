// The one store interface: the index of its groups. Each group's port is in port/<aggregate>.ts and
// the records it keeps in src/model/; both backends implement every group and pass
// test/src/store/conformance/. A service takes the slice it uses (StoreSlice), not the whole store.
import type { AddressStore } from './port/addresses.js';
import type { DomainStore } from './port/domains.js';
import type { IdempotencyStore } from './port/idempotency.js';
import type { KeyStore } from './port/keys.js';
import type { MessageStore, OutboxStore, QueueStore, UsageStore } from './port/messages.js';
import type { RateLimitStore } from './port/rate-limit.js';
import type { SuppressionStore } from './port/suppressions.js';
import type { TlsStore } from './port/tls.js';
import type { WebhookEndpointStore, WebhookStore } from './port/webhooks.js';
import type { WorkspaceStore } from './port/workspaces.js';
import type { StoreEvents } from './port/events.js';
import type { TrackingStore } from './port/tracking.js';
import type { SecretStore } from './port/secrets.js';
import type { InboxStore } from './port/inbox.js';
import type { ListStore, SubscriberStore } from './port/lists.js';
import type { CampaignStore } from './port/campaigns.js';
import type { PeopleStore } from './port/people.js';
import type { SequenceStore } from './port/sequences.js';
import type { BackupStore } from './port/backup.js';
import type { DaemonStore } from './port/daemons.js';

export type * from './port/addresses.js';
export type * from './port/events.js';
export type * from './port/domains.js';
export type * from './port/idempotency.js';
export type * from './port/keys.js';
export type * from './port/messages.js';
export type * from './port/rate-limit.js';
export type * from './port/suppressions.js';
export type * from './port/tls.js';
export type * from './port/tracking.js';
export type * from './port/secrets.js';
export type * from './port/inbox.js';
export type * from './port/lists.js';
export type * from './port/campaigns.js';
export type * from './port/people.js';
export type * from './port/sequences.js';
export type * from './port/webhooks.js';
export type * from './port/workspaces.js';

export interface StoreGroups {
  workspaces: WorkspaceStore;
  keys: KeyStore;
  domains: DomainStore;
  addresses: AddressStore;
  messages: MessageStore;
  queue: QueueStore;
  outbox: OutboxStore;
  endpoints: WebhookEndpointStore;
  webhooks: WebhookStore;
  suppressions: SuppressionStore;
  tls: TlsStore;
  idempotency: IdempotencyStore;
  rateLimit: RateLimitStore;
  usage: UsageStore;
  tracking: TrackingStore;
  secrets: SecretStore;
  inbox: InboxStore;
  lists: ListStore;
  subscribers: SubscriberStore;
  campaigns: CampaignStore;
  sequences: SequenceStore;
  people: PeopleStore;
  backup: BackupStore;
  daemons: DaemonStore;
}

/** The groups a service uses, e.g. `StoreSlice<'workspaces' | 'usage'>`. */
export type StoreSlice<G extends keyof StoreGroups> = Pick<StoreGroups, G>;

export interface Store extends StoreGroups {
  /** A short description for logs, never with a password. */
  readonly describe: string;
  /** Resolves when the store answers; throws SvcError store_unavailable otherwise. */
  health(): Promise<void>;
  close(): Promise<void>;
  /** What the store set aside when it opened (unreadable lines), said at every start until repaired; null when nothing. */
  startupWarning?(): string | null;
  /** What the store did as it opened that an operator should read in the log (null when nothing). */
  startupNote?(): string | null;
  /** Work announcements to and from the other processes on this store; absent where none can share it. */
  readonly events?: StoreEvents;
}

/**
 * Every operation of every group, so that the daemon's admin socket can forward exactly these and
 * nothing else. The mapped type makes the compiler insist that a new operation is listed here.
 */
export const storeOperations: { [G in keyof StoreGroups]: Record<keyof StoreGroups[G], true> } = {
  workspaces: {
    create: true,
    list: true,
    getByName: true,
    setPlan: true,
    trialWarnings: true,
    recordTrialWarning: true,
    markDeleted: true,
    deletions: true,
    claimDeletion: true,
    purge: true,
  },
  keys: { create: true, listByWorkspace: true, findByHash: true, revoke: true },
  domains: { create: true, listByWorkspace: true, listAll: true, get: true, byId: true, verifiedBy: true, saveCheck: true, remove: true },
  addresses: { create: true, listByWorkspace: true, get: true, everywhere: true, setStatus: true, remove: true },
  messages: {
    accept: true,
    get: true,
    idsWithPrefix: true,
    list: true,
    byIds: true,
    byHeaderId: true,
    content: true,
    purge: true,
    attempts: true,
  },
  queue: { claim: true, renew: true, complete: true, depth: true, pending: true, take: true },
  outbox: { pending: true },
  endpoints: { create: true, listByWorkspace: true, get: true, update: true, remove: true },
  webhooks: {
    fanOut: true,
    claim: true,
    record: true,
    attempts: true,
    attempt: true,
    attemptIdsWithPrefix: true,
    depth: true,
    purge: true,
  },
  suppressions: { list: true, add: true, remove: true, find: true },
  tls: { get: true, saveIfAbsent: true },
  idempotency: { claim: true, release: true, renew: true, purge: true },
  rateLimit: { hit: true },
  usage: { get: true },
  tracking: { byTokens: true, record: true, events: true },
  secrets: { keep: true },
  inbox: {
    receive: true,
    list: true,
    get: true,
    idsWithPrefix: true,
    threads: true,
    markThread: true,
    threadState: true,
    threadOf: true,
    about: true,
    usage: true,
    purge: true,
    remove: true,
    compact: true,
  },
  lists: { create: true, listByWorkspace: true, get: true, update: true, remove: true, sweep: true },
  subscribers: {
    upsert: true,
    upsertMany: true,
    newContacts: true,
    list: true,
    get: true,
    active: true,
    idsWithPrefix: true,
    activeAfter: true,
    lastPosition: true,
    byToken: true,
    setStatus: true,
    remove: true,
    confirmSent: true,
    contacts: true,
  },
  campaigns: { create: true, get: true, list: true, unfinished: true, setStatus: true, countUnsubscribe: true, counts: true },
  sequences: {
    create: true,
    list: true,
    get: true,
    ofList: true,
    remove: true,
    addStep: true,
    steps: true,
    removeStep: true,
    enrol: true,
    enrolments: true,
    claimDue: true,
    advance: true,
    stop: true,
  },
  backup: { snapshot: true },
  daemons: { beat: true, list: true, gone: true },
  people: {
    add: true,
    list: true,
    get: true,
    setRole: true,
    remove: true,
    account: true,
    accountById: true,
    memberships: true,
    issueLink: true,
    peekLink: true,
    useLink: true,
    setPassword: true,
    signedIn: true,
    createSession: true,
    session: true,
    endSession: true,
    endSessions: true,
  },
};
