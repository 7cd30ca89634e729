// The service: every rule of spec.md, built from injected dependencies (DESIGN.md). Transports and
// commands call it; it knows nothing of HTTP, SMTP or the command line.
//
// One table (PARTS) says how each part is built; each part's module is imported when the part is
// first asked for. The daemon builds them all (createService); a command builds the one or two it
// uses (PartMaker), so that `svc keys list` does not load the send pipeline, sign-in or broadcasts.
// Parts that send share one pipeline and one mailer of svc's own mail, as `get` hands them out.
import type { Deps } from './deps.js';
import type { DnsClient } from './domains/dns.js';
import type { Send } from './model/send.js';
import type { Workspace } from './model/workspace.js';
import type { Principal } from './auth/authenticate.js';
import type { SystemMail } from './people/system-mail.js';
import type { WorkspaceDeletionService } from './workspaces/deletion.js';
import { serviceDeps, type ServiceDeps } from './service-deps.js';

/** What several parts are built on, each made once per set of deps. */
interface Shared {
  send: Send;
  systemMail: SystemMail;
  deletion: WorkspaceDeletionService;
}
type Get = <K extends keyof Shared>(name: K) => Promise<Shared[K]>;

const PARTS = {
  /** The one pipeline: REST, the relay, the inbox's replies and list mail all send through it. */
  send: async (deps: ServiceDeps) => (await import('./send/pipeline.js')).sendPipeline(deps),
  /** svc's own mail from --system-sender (invitations, trial warnings). */
  systemMail: async (deps: ServiceDeps, get: Get) => (await import('./people/system-mail.js')).systemMail(deps, await get('send')),
  /** Deleting a workspace: asked for at once, its data removed by the daemon's trial worker. */
  deletion: async (deps: ServiceDeps) => (await import('./workspaces/deletion.js')).workspaceDeletion(deps),
  /** POST /api/v2/emails: the body's rules, then the send, once per Idempotency-Key. */
  sendJson: async (deps: ServiceDeps, get: Get) => {
    const [{ idempotentSend }, { parseSendRequest }, send] = await Promise.all([
      import('./send/idempotent.js'),
      import('./send/validate.js'),
      get('send'),
    ]);
    const idempotent = idempotentSend(deps);
    return (ws: Workspace, body: unknown, idempotencyKey?: string, key?: { id: string; prefix: string }) =>
      idempotent(ws, idempotencyKey, body, (claim) =>
        send(ws, parseSendRequest(body), { source: 'api', idempotency: claim, key: key ?? null }),
      );
  },
  authenticate: async (deps: ServiceDeps) => {
    const { authenticateKey } = await import('./auth/authenticate.js');
    return (token: string): Promise<Principal> => authenticateKey(deps.store, token);
  },
  /** GET /api/v2/me */
  me: async () => (p: Principal) => ({ tenant: p.workspace.name, permissions: p.scopes }),
  rateLimit: async (deps: ServiceDeps) => (await import('./auth/rate-limit.js')).rateLimiter(deps),
  workspaces: async (deps: ServiceDeps) => (await import('./workspaces/workspaces.js')).workspaceService(deps),
  keys: async (deps: ServiceDeps) => (await import('./auth/keys.js')).keyService(deps),
  domains: async (deps: ServiceDeps) => (await import('./domains/domains.js')).domainService(deps, deps.dns),
  addresses: async (deps: ServiceDeps) => (await import('./addresses/addresses.js')).addressService(deps),
  /** The workspace's people (accounts with a role; the web app signs them in). */
  people: async (deps: ServiceDeps, get: Get) => (await import('./people/people.js')).peopleService(deps, await get('systemMail')),
  /** Sign-in to the web app: links, passwords, sessions. */
  signIn: async (deps: ServiceDeps) => (await import('./people/sign-in.js')).signInService(deps),
  /** The trial's warnings due now, and the deletions after the third (the daemon's trial tick runs it). */
  trialSweep: async (deps: ServiceDeps, get: Get) =>
    (await import('./people/trial-warnings.js')).trialSweep(deps, await get('systemMail'), await get('deletion')),
  messages: async (deps: ServiceDeps) => (await import('./messages/log.js')).messageLog(deps),
  suppressions: async (deps: ServiceDeps) => (await import('./suppressions/suppressions.js')).suppressionService(deps),
  webhooks: async (deps: ServiceDeps) => (await import('./webhooks/webhooks.js')).webhookService(deps),
  tracking: async (deps: ServiceDeps) => (await import('./tracking/tracking.js')).trackingService(deps),
  explain: async (deps: ServiceDeps) => (await import('./messages/explain.js')).messageExplainer(deps),
  /** The operator's view of the outbound queue: list, show, retry now, cancel (`svc queue`). */
  queue: async (deps: ServiceDeps) => (await import('./send/queue-admin.js')).queueAdmin(deps),
  /** The running daemons at a glance (`svc status`). */
  status: async (deps: ServiceDeps) => (await import('./status/status.js')).statusService(deps),
  inbox: async (deps: ServiceDeps, get: Get) => (await import('./inbox/inbox.js')).inboxService(deps, await get('send')),
  lists: async (deps: ServiceDeps, get: Get) =>
    (await import('./lists/lists.js')).listService(deps, await get('send'), await get('systemMail')),
  broadcasts: async (deps: ServiceDeps) => (await import('./broadcasts/broadcasts.js')).broadcastService(deps),
  /** The fan-out of broadcasts' campaigns (the daemon's fan-out worker runs it). */
  fanOut: async (deps: ServiceDeps, get: Get) => (await import('./broadcasts/fan-out.js')).fanOutService(deps, await get('send')),
  sequences: async (deps: ServiceDeps) => (await import('./sequences/sequences.js')).sequenceService(deps),
  /** Due sequence steps (the daemon's scheduler runs it). */
  scheduler: async (deps: ServiceDeps, get: Get) => (await import('./sequences/scheduler.js')).sequenceScheduler(deps, await get('send')),
};

export type PartName = keyof typeof PARTS;
type Built = { [K in PartName]: Awaited<ReturnType<(typeof PARTS)[K]>> };

/** The whole service: every part, and what they are built on. */
export type Service = Built & Pick<ServiceDeps, 'store' | 'faults' | 'bus' | 'events'> & { deps: ServiceDeps };

/** Some of the service: the parts named, on deps as createService makes them. */
export type Parts<K extends PartName> = Pick<Service, K | 'store' | 'deps' | 'bus'>;

/** Builds parts on one set of deps, each once. */
export class PartMaker {
  readonly #deps: Promise<ServiceDeps>;
  readonly #made = new Map<PartName, Promise<unknown>>();

  /** `deps`: may still be on its way (the store opening) while the parts' modules load. */
  constructor(deps: Promise<ServiceDeps>) {
    this.#deps = deps;
  }

  #part<K extends PartName>(name: K): Promise<Built[K]> {
    if (!this.#made.has(name)) {
      const get: Get = (n) => this.#part(n) as never;
      const make = PARTS[name] as (deps: ServiceDeps, get: Get) => Promise<Built[K]>;
      this.#made.set(
        name,
        this.#deps.then((deps) => make(deps, get)),
      );
    }
    return this.#made.get(name) as Promise<Built[K]>;
  }

  async parts<K extends PartName>(names: K[]): Promise<Parts<K>> {
    const made = await Promise.all(names.map((n) => this.#part(n)));
    const deps = await this.#deps;
    return { deps, store: deps.store, bus: deps.bus, ...Object.fromEntries(names.map((n, i) => [n, made[i]])) } as Parts<K>;
  }
}

/**
 * The whole service (the daemon, the live views, tests). `hear`: the bus also delivers what other
 * processes on the store announce; otherwise it only tells them (a one-shot command's sends wake
 * the daemon's workers).
 */
export async function createService(given: Deps & { dns?: DnsClient }, opts: { hear?: boolean } = {}): Promise<Service> {
  const deps = serviceDeps(given, opts);
  const parts = await new PartMaker(Promise.resolve(deps)).parts(Object.keys(PARTS) as PartName[]);
  return { ...parts, faults: deps.faults, events: deps.events } as Service;
}
