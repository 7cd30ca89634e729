// The service: every rule of spec.md, built from injected dependencies (DESIGN.md). Transports and
// commands call it; it knows nothing of HTTP, SMTP or the command line.
import type { Deps } from './deps.js';
import type { Workspace } from './model/workspace.js';
import { workspaceService } from './workspaces/workspaces.js';
import { keyService } from './auth/keys.js';
import { authenticateKey, type Principal } from './auth/authenticate.js';
import { domainService } from './domains/domains.js';
import { addressService } from './addresses/addresses.js';
import { peopleService } from './people/people.js';
import { signInService } from './people/sign-in.js';
import type { DnsClient } from './domains/dns.js';
import { sendPipeline } from './send/pipeline.js';
import { parseSendRequest } from './send/validate.js';
import { messageLog } from './messages/log.js';
import { suppressionService } from './suppressions/suppressions.js';
import { idempotentSend } from './send/idempotent.js';
import { systemMail } from './people/system-mail.js';
import { trialSweep } from './workspaces/trial-sweep.js';
import { workspaceDeletion } from './workspaces/deletion.js';
import { rateLimiter } from './auth/rate-limit.js';
import { webhookService } from './webhooks/webhooks.js';
import { serviceDeps } from './service-deps.js';
import { trackingService } from './tracking/tracking.js';
import { messageExplainer } from './messages/explain.js';
import { inboxService } from './inbox/inbox.js';
import { listService } from './lists/lists.js';
import { broadcastService } from './broadcasts/broadcasts.js';
import { fanOutService } from './broadcasts/fan-out.js';
import { sequenceService } from './sequences/sequences.js';
import { sequenceScheduler } from './sequences/scheduler.js';
import { queueAdmin } from './send/queue-admin.js';
import { statusService } from './status/status.js';

/**
 * `hear`: the bus also delivers what other processes on the store announce (the daemon, live
 * views); otherwise it only tells them (a one-shot command's sends wake the daemon's workers).
 */
export function createService(given: Deps & { dns?: DnsClient }, opts: { hear?: boolean } = {}) {
  const deps = serviceDeps(given, opts);
  const send = sendPipeline(deps);
  const idempotent = idempotentSend(deps);
  const systemMailer = systemMail(deps, send);
  const deletion = workspaceDeletion(deps);
  return {
    deps,
    store: deps.store,
    faults: deps.faults,
    bus: deps.bus,
    events: deps.events,
    workspaces: workspaceService(deps),
    keys: keyService(deps),
    domains: domainService(deps, deps.dns),
    addresses: addressService(deps),
    /** The workspace's people (accounts with a role; the web app signs them in). */
    people: peopleService(deps, systemMailer),
    /** svc's own mail from --system-sender (invitations, trial warnings). */
    systemMail: systemMailer,
    /** The trial's warnings due now, and the deletions after the third (the daemon's trial tick runs it). */
    trialSweep: trialSweep(deps, systemMailer, deletion),
    /** Deleting a workspace: asked for at once, its data removed by the daemon's trial worker. */
    deletion,
    /** Sign-in to the web app: links, passwords, sessions. */
    signIn: signInService(deps),
    /** The one pipeline; `sendJson` applies POST /emails' body rules first. */
    send,
    /** POST /api/v2/emails: the body's rules, then the send, once per Idempotency-Key. */
    sendJson: (ws: Workspace, body: unknown, idempotencyKey?: string, key?: { id: string; prefix: string }) =>
      idempotent(ws, idempotencyKey, body, (claim) =>
        send(ws, parseSendRequest(body), { source: 'api', idempotency: claim, key: key ?? null }),
      ),
    rateLimit: rateLimiter(deps),
    messages: messageLog(deps),
    suppressions: suppressionService(deps),
    webhooks: webhookService(deps),
    tracking: trackingService(deps),
    explain: messageExplainer(deps),
    /** The operator's view of the outbound queue: list, show, retry now, cancel (`svc queue`). */
    queue: queueAdmin(deps),
    /** The running daemons at a glance (`svc status`). */
    status: statusService(deps),
    inbox: inboxService(deps, send),
    lists: listService(deps, send, systemMailer),
    broadcasts: broadcastService(deps),
    /** The fan-out of broadcasts' campaigns (the daemon's fan-out worker runs it). */
    fanOut: fanOutService(deps, send),
    sequences: sequenceService(deps),
    /** Due sequence steps (the daemon's scheduler runs it). */
    scheduler: sequenceScheduler(deps, send),
    authenticate: (token: string): Promise<Principal> => authenticateKey(deps.store, token),
    /** GET /api/v2/me */
    me: (p: Principal) => ({ tenant: p.workspace.name, permissions: p.scopes }),
  };
}

export type Service = ReturnType<typeof createService>;
