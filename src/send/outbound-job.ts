// One hand-off of one job: compose its copies (one per recipient when anything in them is per
// recipient, else one for all), sign each with the domain's key, deliver them, and store the
// outcome (statuses, events, suppressions, or the retry) in one store call.
import type { DepsOf } from '../deps.js';
import type { Message, OutboundJob } from '../model/message.js';
import { dkimBroken } from '../model/domain.js';
import { copiesOf, type CopyFor } from './compose/index.js';
import { ComposeAborted, type ComposePool } from './compose-pool.js';
import { PoisonMessage } from './poison.js';
import { damagedKeyDetail, signingDomain, unsignedDetail } from './dkim.js';
import type { HandOff, HostTry, RecipientResult } from './hand-off.js';
import { HandOffAborted } from './smtp-pool.js';
import { REPLY_MAX, type DeliveryAttempt } from '../model/attempt.js';
import { outcomeOf, type RetryPolicy } from './outcome.js';
import { returnPath } from '../mail/return-path.js';
import { suppressedError } from '../model/suppression.js';
import { SMARTHOST, destinationDeferral, type DestinationBackoff } from './backoff.js';

const STOPPED = 'the daemon stopped during this hand-off; it is tried again later';

export interface DeliveryDeps {
  deliverer: HandOff;
  composer: ComposePool;
  retry: RetryPolicy;
  /** The key that signs tracked links (read once from the store). */
  linkKey: () => Promise<string>;
  /** Destinations that defer are paused (backoff.ts). */
  backoff?: DestinationBackoff;
}

/** The DKIM signature a copy carries: its domain, selector and signed headers (null unsigned). */
function signatureOf(raw: Buffer): DeliveryAttempt['dkim'] {
  const head = raw.subarray(0, Math.min(raw.length, 4096)).toString('latin1');
  const m = /^DKIM-Signature:((?:.*(?:\r\n[ \t].*)*))/im.exec(head);
  if (!m) return null;
  const tags = Object.fromEntries(
    m[1]!
      .replace(/\r\n[ \t]+/g, ' ')
      .split(';')
      .map((t) => t.trim().split('='))
      .map(([k, ...v]) => [k!.trim(), v.join('=').trim()]),
  );
  return tags.d && tags.s ? { domain: tags.d, selector: tags.s, headers: (tags.h ?? '').replace(/\s+/g, '') } : null;
}

/** The enhanced status code of a reply (RFC 3463, `5.1.1`), else the class its code implies. */
export function enhancedCode(reply: string): string | null {
  const m = /^\s*([245])\d\d[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(reply);
  if (m) return m[2]!;
  const code = /^\s*([245])\d\d\b/.exec(reply);
  return code ? `${code[1]}.0.0` : null;
}

/** Why a cancelled campaign's copy was not sent (its record's error). */
export const CANCELLED = 'svc: not sent: the campaign was cancelled';

/** Why a list copy is not sent at hand-off: its subscriber left the list (or the list went) since it was made. */
export const LEFT_LIST = 'svc: not sent: the subscriber unsubscribed, or was removed, before this copy was handed off';

export function deliveryService(
  deps: DepsOf<'messages' | 'domains' | 'queue' | 'campaigns' | 'subscribers' | 'suppressions'>,
  d: DeliveryDeps,
) {
  const { store, clock, random, log, config } = deps;

  /** What each recipient's copy met: the last host tried, TLS, time, and the signature it carried. */
  const transcribe = (
    job: OutboundJob,
    messages: Message[],
    got: RecipientResult[],
    trace: HostTry[],
    raw: Buffer | null,
    at: string,
    ms: number,
  ): DeliveryAttempt[] => {
    const last = trace.at(-1);
    const dkim = raw ? signatureOf(raw) : null;
    const byAddress = new Map(messages.map((m) => [m.to.toLowerCase(), m]));
    return got.flatMap((r) => {
      const m = byAddress.get(r.address.toLowerCase());
      if (!m) return [];
      // Every host tried before the last one in this attempt (an MX that took none of it now passed it to the next).
      const before = trace.slice(0, -1).map((h) => ({
        id: random.sortable(),
        workspace_id: m.workspace_id,
        message_id: m.id,
        attempt: job.attempts + 1,
        at,
        duration_ms: h.ms,
        host: h.host,
        ip: h.ip,
        tls: h.tls,
        outcome: h.outcome ?? ('temporary' as const),
        class: null,
        reply: `${h.reply ?? 'no answer'}; the next MX was tried`.slice(0, REPLY_MAX),
        dkim,
      }));
      return [
        ...before,
        {
          id: random.sortable(),
          workspace_id: m.workspace_id,
          message_id: m.id,
          attempt: job.attempts + 1,
          at,
          duration_ms: ms,
          host: last?.host ?? null,
          ip: last?.ip ?? null,
          tls: last?.tls ?? null,
          outcome: r.outcome,
          class: r.class ?? null,
          reply: r.response.slice(0, REPLY_MAX),
          dkim,
        },
      ];
    });
  };

  /**
   * The records of a job that must not go now, with why: an address suppressed since it was
   * accepted (an unsubscribe, a bounce, an operator), or a list copy whose subscriber is no longer
   * active on the list (unsubscribed or removed, the list deleted). What the pipeline checked when
   * the copy was made is checked again here, where the copy leaves: a broadcast's hand-off takes
   * minutes, and an unsubscribe during it must hold.
   */
  async function heldBack(job: OutboundJob, messages: Message[]): Promise<Map<string, string>> {
    const ws = job.workspace_id;
    const out = new Map<string, string>();
    const suppressed = await store.suppressions.find(
      ws,
      messages.map((m) => m.to.toLowerCase()),
    );
    for (const s of suppressed) {
      const m = messages.find((x) => x.to.toLowerCase() === s.address);
      if (m) out.set(m.id, `svc: ${suppressedError(m.to, s)}`);
    }
    const copies = messages.filter((m) => m.subscriber && !out.has(m.id));
    if (copies.length) {
      const active = await store.subscribers.active(
        ws,
        copies.map((m) => ({ list_id: m.subscriber!.list_id, id: m.subscriber!.id })),
      );
      for (const m of copies) if (!active.has(m.subscriber!.id)) out.set(m.id, LEFT_LIST);
    }
    return out;
  }

  async function attempt(job: OutboundJob, messages: Message[], transcript: DeliveryAttempt[]): Promise<RecipientResult[]> {
    const withheld = await heldBack(job, messages);
    if (!withheld.size) return handOff(job, messages, transcript);
    const go = messages.filter((m) => !withheld.has(m.id));
    const stopped = messages
      .filter((m) => withheld.has(m.id))
      .map((m) => ({ address: m.to, outcome: 'failed' as const, response: withheld.get(m.id)! }));
    return go.length ? [...stopped, ...(await handOff(job, go, transcript))] : stopped;
  }

  async function handOff(job: OutboundJob, messages: Message[], transcript: DeliveryAttempt[]): Promise<RecipientResult[]> {
    const content = await store.messages.content(job.content_id);
    const domain = content ? await store.domains.byId(content.domain_id) : null;
    const all = messages.map((m) => m.to);
    // A cancelled broadcast's copies not yet handed off are not sent (a job holds one campaign's copies).
    const campaignId = messages[0]?.campaign_id;
    if (campaignId && (await store.campaigns.get(messages[0]!.workspace_id, campaignId))?.status === 'cancelled') {
      return all.map((address) => ({ address, outcome: 'failed' as const, response: CANCELLED }));
    }
    if (!content) return all.map((address) => ({ address, outcome: 'failed' as const, response: 'svc: the content of this send is gone' }));
    if (!domain)
      return all.map((address) => ({
        address,
        outcome: 'failed' as const,
        response: `svc: the sending domain was removed before hand-off`,
      }));
    const signing = signingDomain(domain);
    // Checked by another process (`svc domains verify`) since the last re-check: said at once.
    if (dkimBroken(domain)) deps.faults?.raise('dkim', unsignedDetail([domain.domain]));
    if (domain.key_damaged) deps.faults?.raise('dkim_key', damagedKeyDetail([domain.domain]));
    const results: RecipientResult[] = [];
    const copies = copiesOf(content, messages);
    // Every transaction of every copy, in order: with `verp` one per recipient, each with the
    // return path of that recipient's record alone (mail/return-path.ts); with `from` one per copy.
    const byAddress = new Map(messages.map((m) => [m.to.toLowerCase(), m]));
    const envelopeFrom = (address: string) => {
      const record = byAddress.get(address.toLowerCase());
      return config.returnPath === 'verp' && record ? returnPath(record.id, content.from) : content.from;
    };
    // The copy being handed off, composed once for all its transactions (they follow one another).
    let held = null as { copy: CopyFor; raw: Buffer } | null;
    const transactions = copies.flatMap((copy) =>
      config.returnPath === 'verp'
        ? copy.recipients.map((address) => ({ copy, from: envelopeFrom(address), to: [address] }))
        : [{ copy, from: content.from, to: copy.recipients }],
    );
    for (let i = 0; i < transactions.length; i++) {
      const { copy, from, to } = transactions[i]!;
      const at = clock.now().toISOString();
      const t0 = Date.now();
      const trace: HostTry[] = [];
      let got: RecipientResult[];
      try {
        if (held?.copy !== copy) {
          const linkKey = content.source === 'broadcast' || content.source === 'sequence' ? await d.linkKey() : undefined;
          held = {
            copy,
            raw: await d.composer.run({ content, copy, baseUrl: config.baseUrl, domain: signing, ...(linkKey ? { linkKey } : {}) }),
          };
        }
        got = await d.deliverer.deliver(job.domain, { from, to, ...(job.priority ? { bulk: true } : {}) }, held.raw, trace);
      } catch (e) {
        // The daemon stopped and its grace is over. Composing cut short before anything went out:
        // nothing happened, the job keeps its lease (run() returns without a record). Otherwise
        // what went out is recorded, and this transaction and the rest are tried again later: a
        // session cut mid-DATA may have been taken, which a retry repeats (at least once, never lost).
        if (!(e instanceof HandOffAborted || (e instanceof ComposeAborted && results.length))) throw e;
        const rest = transactions
          .slice(i)
          .flatMap((x) => x.to.map((address) => ({ address, outcome: 'temporary' as const, response: `svc: ${STOPPED}` })));
        results.push(...rest);
        transcript.push(...transcribe(job, messages, rest, trace, null, at, Date.now() - t0));
        break;
      }
      const { raw } = held;
      results.push(...got);
      transcript.push(...transcribe(job, messages, got, trace, raw, at, Date.now() - t0));
      // Refused before any recipient was named (no answer, a greeting or TLS refusal, the sender
      // refused, our next hop failing, no such domain): the other transactions would meet the same
      // refusal, so they share its result rather than wait it out again.
      if (
        got.length &&
        got.every(
          (r) =>
            r.outcome !== 'sent' &&
            (r.outcome === 'hop' || r.class === 'bad-domain' || (r.stage !== undefined && r.stage !== 'rcpt' && r.stage !== 'data')),
        )
      ) {
        const shared = transactions.slice(i + 1).flatMap((rest) => rest.to.map((address) => ({ ...got[0]!, address })));
        results.push(...shared);
        transcript.push(
          ...transcribe(job, messages, shared, [], null, clock.now().toISOString(), 0).map((a) => ({
            ...a,
            reply: `not tried: ${a.reply}`,
          })),
        );
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
      const transcript: DeliveryAttempt[] = [];
      try {
        results = await attempt(job, messages, transcript);
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
      // A destination that defers as a whole is left alone for a while (backoff.ts).
      if (d.backoff) {
        const destination = config.outbound === 'direct' ? job.domain : SMARTHOST;
        const reply = destinationDeferral(results);
        if (reply !== null) {
          const p = d.backoff.deferred(destination, reply);
          deps.events?.event('warn', 'delivery paused', { destination, until: new Date(p.until).toISOString(), reply });
        } else if (results.some((r) => r.outcome === 'sent')) d.backoff.took(destination);
      }
      const outcome = outcomeOf(job, messages, results, clock.now(), d.retry, random);
      // Failures of our own (composing, the content gone) have no host: their results say why.
      const told = new Set(transcript.map((a) => a.message_id));
      outcome.transcript = [
        ...transcript,
        ...transcribe(
          job,
          messages.filter((m) => !told.has(m.id)),
          results,
          [],
          null,
          clock.now().toISOString(),
          0,
        ),
      ];
      await store.queue.complete(job.id, outcome);
      if (outcome.events.length) deps.bus?.publish('outboxed');
      // The mail log: one line per recipient of each attempt (docs/operating.md "The log"), as Postfix's
      // `status=` lines, once the outcome is stored (a line read says what the store holds: a bounce
      // seen in the log is already on the suppression list). A remote refusal or deferral is info;
      // only our own next hop failing is a fault.
      const byAddress = new Map(messages.map((m) => [m.to.toLowerCase(), m]));
      const status = new Map(outcome.updates.map((u) => [u.id, u.status]));
      const tried = new Map(outcome.transcript.map((a) => [a.message_id, a]));
      for (const r of results) {
        const m = byAddress.get(r.address.toLowerCase());
        const a = m ? tried.get(m.id) : undefined;
        const final = m ? status.get(m.id) : undefined;
        deps.events?.event(r.outcome === 'hop' ? 'warn' : 'info', 'delivery', {
          message: m?.id,
          message_id: m?.message_id,
          from: m?.from,
          to: r.address,
          relay: a?.host ?? null,
          ip: a?.ip ?? null,
          tls: a?.tls ?? null,
          status: final === 'sent' ? 'sent' : final === 'bounced' ? 'bounced' : 'deferred',
          // A domain that takes no mail (NXDOMAIN, NODATA, null MX) has no server reply: 5.1.2, as Postfix says.
          dsn: enhancedCode(r.response) ?? (r.class === 'bad-domain' ? '5.1.2' : null),
          class: r.class ?? null,
          delay: m ? Math.max(0, Math.round((clock.now().getTime() - Date.parse(m.created_at)) / 100) / 10) : null,
          attempt: job.attempts + 1,
          reply: r.response,
        });
      }
    },
  };
}

export type DeliveryService = ReturnType<typeof deliveryService>;
