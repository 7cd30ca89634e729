// One hand-off of one job: compose its copies (one per recipient when anything in them is per
// recipient, else one for all), sign each with the domain's key, deliver them, and store the
// outcome (statuses, events, suppressions, or the retry) in one store call.
import type { DepsOf } from '../deps.js';
import type { Message, OutboundJob } from '../model/message.js';
import { copiesOf } from './compose/index.js';
import { ComposeAborted, type ComposePool } from './compose-pool.js';
import { PoisonMessage } from './poison.js';
import { signingDomain } from './dkim.js';
import type { Deliverer, RecipientResult } from './deliver.js';
import { outcomeOf, type RetryPolicy } from './outcome.js';

export interface DeliveryDeps {
  deliverer: Deliverer;
  composer: ComposePool;
  retry: RetryPolicy;
  /** The key that signs tracked links (read once from the store). */
  linkKey: () => Promise<string>;
}

export function deliveryService(deps: DepsOf<'messages' | 'domains' | 'queue'>, d: DeliveryDeps) {
  const { store, clock, random, log, config } = deps;

  async function attempt(job: OutboundJob, messages: Message[]): Promise<RecipientResult[]> {
    const content = await store.messages.content(job.content_id);
    const domain = content ? await store.domains.byId(content.domain_id) : null;
    const all = messages.map((m) => m.to);
    if (!content) return all.map((address) => ({ address, outcome: 'failed' as const, response: 'svc: the content of this send is gone' }));
    if (!domain) return all.map((address) => ({ address, outcome: 'failed' as const, response: `svc: the sending domain was removed before hand-off` }));
    const signing = signingDomain(domain);
    const results: RecipientResult[] = [];
    const copies = copiesOf(content, job, messages);
    for (let i = 0; i < copies.length; i++) {
      const copy = copies[i]!;
      const linkKey = content.source === 'broadcast' || content.source === 'sequence' ? await d.linkKey() : undefined;
      const raw = await d.composer.run({ content, copy, baseUrl: config.baseUrl, domain: signing, ...(linkKey ? { linkKey } : {}) });
      const got = await d.deliverer.deliver(job.domain, { from: content.from, to: copy.recipients }, raw);
      results.push(...got);
      // Refused before any recipient was named (no answer, a greeting or TLS refusal, the sender
      // refused, our next hop failing, no such domain): the other copies would meet the same
      // refusal, so they share its result rather than wait it out again.
      if (got.length && got.every((r) => r.outcome !== 'sent' && (r.outcome === 'hop' || r.class === 'bad-domain' || (r.stage !== undefined && r.stage !== 'rcpt' && r.stage !== 'data')))) {
        for (const rest of copies.slice(i + 1)) for (const address of rest.recipients) results.push({ ...got[0]!, address });
        break;
      }
    }
    return results;
  }

  return {
    /** Tries one claimed job and records what happened. */
    async run(job: OutboundJob): Promise<void> {
      const messages = await store.messages.byIds(job.message_ids);
      let results: RecipientResult[];
      try {
        results = await attempt(job, messages);
      } catch (e) {
        // Stopped mid-compose: nothing happened; the job keeps its lease and is handed off again.
        if (e instanceof ComposeAborted) return;
        if (e instanceof PoisonMessage) {
          // Every attempt would fail the same way: bounced now, with the reason, not retried for hours.
          log.warn(`delivery of job ${job.id}: ${e.message}; bounced`);
          results = messages.map((m) => ({ address: m.to, outcome: 'failed' as const, response: e.message }));
        } else {
          // Another failure of ours (a thread died, a key): try again later rather than lose the mail.
          log.error(`delivery of job ${job.id} failed: ${(e as Error).message}`);
          results = messages.map((m) => ({ address: m.to, outcome: 'temporary' as const, response: `svc: ${(e as Error).message}` }));
        }
      }
      // Our own next hop failing is loud; once it takes mail again, that is said too.
      const hop = results.find((r) => r.outcome === 'hop');
      if (hop) deps.faults?.raise('outbound', `the next hop refused or failed (${hop.class}): ${hop.response}; mail is kept and retried`);
      else if (results.some((r) => r.outcome === 'sent')) deps.faults?.clear('outbound');
      const outcome = outcomeOf(job, messages, results, clock.now(), d.retry, random);
      // One line per outcome (rate-limited per kind and class): what happened, to whom, and why.
      const byAddress = new Map(messages.map((m) => [m.to.toLowerCase(), m]));
      for (const r of results) {
        const m = byAddress.get(r.address.toLowerCase());
        const level = r.outcome === 'sent' ? 'info' : r.outcome === 'temporary' ? 'warn' : 'error';
        deps.events?.event(level, `delivery ${r.outcome}${r.class ? ` ${r.class}` : ''}`, { message: m?.id, domain: job.domain, attempt: job.attempts + 1, reply: r.response });
      }
      await store.queue.complete(job.id, outcome);
      if (outcome.events.length) deps.bus?.publish('outboxed');
    },
  };
}

export type DeliveryService = ReturnType<typeof deliveryService>;
