// The service's parts one at a time, each loaded when asked for. createService loads and builds
// every part (the daemon uses them all); a command uses one or two, and loading the other modules
// (the send pipeline, sign-in, broadcasts, ...) was most of an admin command's start-up. Each part
// here is built from the same factory and the same deps as createService builds it; parts that
// send share one pipeline, as they do in the whole service.
import type { Service } from './service.js';
import type { ServiceDeps } from './service-deps.js';
import type { Send } from './send/pipeline.js';
import type { SystemMail } from './people/system-mail.js';

/** What parts built on one set of deps share: one send pipeline and one mailer of svc's own mail. */
export class Shared {
  #send: Promise<Send> | undefined;
  #systemMail: Promise<SystemMail> | undefined;

  constructor(readonly deps: ServiceDeps) {}

  send(): Promise<Send> {
    this.#send ??= import('./send/pipeline.js').then((m) => m.sendPipeline(this.deps));
    return this.#send;
  }

  systemMail(): Promise<SystemMail> {
    this.#systemMail ??= Promise.all([import('./people/system-mail.js'), this.send()]).then(([m, send]) => m.systemMail(this.deps, send));
    return this.#systemMail;
  }
}

/** Builds a part: its module's import starts at once, while the store may still be opening. */
type Maker<K extends keyof Service> = (s: Promise<Shared>) => Promise<Service[K]>;

const PARTS = {
  workspaces: async (s) => (await import('./workspaces/workspaces.js')).workspaceService((await s).deps),
  keys: async (s) => (await import('./auth/keys.js')).keyService((await s).deps),
  domains: async (s) => (await import('./domains/domains.js')).domainService((await s).deps, (await s).deps.dns),
  addresses: async (s) => (await import('./addresses/addresses.js')).addressService((await s).deps),
  people: async (s) => (await import('./people/people.js')).peopleService((await s).deps, await (await s).systemMail()),
  deletion: async (s) => (await import('./workspaces/deletion.js')).workspaceDeletion((await s).deps),
  messages: async (s) => (await import('./messages/log.js')).messageLog((await s).deps),
  suppressions: async (s) => (await import('./suppressions/suppressions.js')).suppressionService((await s).deps),
  webhooks: async (s) => (await import('./webhooks/webhooks.js')).webhookService((await s).deps),
  tracking: async (s) => (await import('./tracking/tracking.js')).trackingService((await s).deps),
  explain: async (s) => (await import('./messages/explain.js')).messageExplainer((await s).deps),
  queue: async (s) => (await import('./send/queue-admin.js')).queueAdmin((await s).deps),
  status: async (s) => (await import('./status/status.js')).statusService((await s).deps),
  inbox: async (s) => (await import('./inbox/inbox.js')).inboxService((await s).deps, await (await s).send()),
  lists: async (s) => (await import('./lists/lists.js')).listService((await s).deps, await (await s).send(), await (await s).systemMail()),
  broadcasts: async (s) => (await import('./broadcasts/broadcasts.js')).broadcastService((await s).deps),
  sequences: async (s) => (await import('./sequences/sequences.js')).sequenceService((await s).deps),
} satisfies { [K in keyof Service]?: Maker<K> };

export type PartName = keyof typeof PARTS;

/** Some of the service: the parts named, on deps as createService makes them. */
export type Parts<K extends PartName> = Pick<Service, K | 'store' | 'deps' | 'bus'>;

/** Builds parts on one set of deps, each once. */
export class PartMaker {
  readonly #shared: Promise<Shared>;
  readonly #made = new Map<PartName, Promise<unknown>>();

  /** `deps`: may still be on its way (the store opening) while the parts' modules load. */
  constructor(deps: Promise<ServiceDeps>) {
    this.#shared = deps.then((d) => new Shared(d));
  }

  async parts<K extends PartName>(names: K[]): Promise<Parts<K>> {
    const made = await Promise.all(
      names.map((n) => {
        if (!this.#made.has(n)) this.#made.set(n, (PARTS[n] as Maker<K>)(this.#shared));
        return this.#made.get(n)!;
      }),
    );
    const { deps } = await this.#shared;
    return { deps, store: deps.store, bus: deps.bus, ...Object.fromEntries(names.map((n, i) => [n, made[i]])) } as Parts<K>;
  }
}
