// The store conformance suite: the same tests against every backend, one file per aggregate.
// A new aggregate adds its file here; each backend's test file runs storeConformance once.
import { addressesConformance } from './addresses.js';
import { domainsConformance } from './domains.js';
import type { Backend } from './fixtures.js';
import { idempotencyConformance } from './idempotency.js';
import { keysConformance } from './keys.js';
import { messagesConformance } from './messages.js';
import { queueConformance } from './queue.js';
import { reopenConformance } from './reopen.js';
import { suppressionsConformance } from './suppressions.js';
import { tlsConformance } from './tls.js';
import { webhooksConformance } from './webhooks.js';
import { trackingConformance } from './tracking.js';
import { inboxConformance } from './inbox.js';
import { listsConformance } from './lists.js';
import { campaignsConformance } from './campaigns.js';
import { sequencesConformance } from './sequences.js';
import { peopleConformance } from './people.js';
import { workspacesConformance } from './workspaces.js';
import { deletionConformance } from './deletion.js';
import { backupConformance } from './backup.js';
import { daemonsConformance } from './daemons.js';
import { rateLimitConformance } from './rate-limit.js';

export type { Backend } from './fixtures.js';

export function storeConformance<B>(backend: Backend<B>): void {
  for (const suite of [
    workspacesConformance,
    keysConformance,
    domainsConformance,
    addressesConformance,
    messagesConformance,
    queueConformance,
    backupConformance,
    daemonsConformance,
    suppressionsConformance,
    rateLimitConformance,
    tlsConformance,
    webhooksConformance,
    idempotencyConformance,
    trackingConformance,
    inboxConformance,
    listsConformance,
    campaignsConformance,
    sequencesConformance,
    peopleConformance,
    deletionConformance,
    reopenConformance,
  ]) {
    suite(backend);
  }
}
