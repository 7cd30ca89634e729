// The one pipeline (DESIGN.md): POST /emails, the relay's DATA, broadcasts and sequence steps all
// create their per-recipient message records here. Validate → sender → suppression → (quota) →
// records, jobs and events in one store call → 202. Delivery (compose, DKIM, hand-off) follows in
// the delivery worker.
import { upgradeUrlOf } from '../config.js';
import type { DepsOf } from '../deps.js';
import {
  priorityOf,
  type CopySubscriber,
  type Message,
  type MessageSource,
  type OutboundJob,
  type RecipientKind,
  type SendContent,
} from '../model/message.js';
import type { CampaignProgress } from '../model/campaign.js';
import type { EnrolmentStep } from '../model/sequence.js';
import { bouncedEvent, type OutboxEvent } from '../model/event.js';
import { suppressedError, type Suppression } from '../model/suppression.js';
import type { Workspace } from '../model/workspace.js';
import { authorizeSender } from './sender.js';
import { SvcError } from '../errors.js';
import { inboxWindows, sendQuotaError, sendWindows, windowsOfToday } from '../workspaces/send-quota.js';
import { assertWritable } from '../workspaces/trial.js';
import type { ListSendResult, Party, SendOptions, SendRequest, SendResult } from '../model/send.js';

/**
 * Recipients of one job at most: one SMTP transaction takes them (RFC 5321 has every server take at
 * least 100 RCPT), and a retry or a lease covers a bounded amount of work.
 */
export const JOB_RECIPIENTS = 100;
/**
 * List mail's jobs are smaller: each copy is a transaction of its own, so a job of 100 would hold a
 * delivery slot for 100 transactions, and a password reset queued behind a broadcast would wait for
 * every slot's job to end (measured: 3,150 copies went first with jobs of 100; bench/RESULTS.md).
 */
export const LIST_JOB_RECIPIENTS = 20;

export function sendPipeline(deps: DepsOf<'messages' | 'suppressions' | 'domains' | 'addresses'>) {
  const { store, clock, random } = deps;
  const sendWindowsOf = windowsOfToday(sendWindows);
  const inboxWindowsOf = windowsOfToday(inboxWindows);

  return async function send(ws: Workspace, req: SendRequest, opts: SendOptions): Promise<SendResult & { list?: ListSendResult }> {
    const at = clock.now();
    const list = opts.list;
    assertWritable(ws, at);
    const domain = await authorizeSender(store, ws, req.from.address);
    const now = at.toISOString();

    // One record per distinct recipient; an address listed twice gets one copy (first kind wins).
    const seen = new Set<string>();
    const recipients: Array<Party & { kind: RecipientKind }> = [];
    for (const [kind, list] of [
      ['to', req.to],
      ['cc', req.cc],
      ['bcc', req.bcc],
    ] as const) {
      for (const p of list) {
        const key = p.address.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        recipients.push({ ...p, kind });
      }
    }
    /** The send's content, records, events and jobs, with these recipients marked suppressed (list mail: left out). */
    const build = (suppressed: Map<string, Suppression>) => {
      const fromDomain = req.from.address.slice(req.from.address.lastIndexOf('@') + 1);
      const content: SendContent = {
        id: random.uuid(),
        workspace_id: ws.id,
        source: opts.source,
        from: req.from.address,
        from_name: req.from.name,
        domain_id: domain.id,
        // Each copy of a broadcast shows its own recipient (compose), never the others; the batch's
        // Sent row stands for the campaign. A sequence step's one copy keeps its recipient: its Sent row names it.
        to: list?.campaign ? [] : req.to,
        cc: req.cc,
        subject: req.subject,
        html: req.html,
        text: req.text,
        message_id: `${random.sortable()}@${fromDomain}`,
        notes: opts.notes ?? [],
        created_at: now,
        ...(req.attachments?.length ? { attachments: req.attachments } : {}),
        ...(req.raw !== undefined ? { raw: req.raw } : {}),
        ...(opts.inbox ? { thread_id: opts.inbox.thread_id, in_reply_to: opts.inbox.in_reply_to, references: opts.inbox.references } : {}),
        ...(list?.preheader ? { preheader: list.preheader } : {}),
        // One Sent row per campaign: the first batch with copies (those before it made none).
        ...(list?.campaign ? { campaign_id: list.campaign.id, ...(list.campaign.copies > 0 ? { in_sent: false as const } : {}) } : {}),
      };
      const messages: Message[] = [];
      const events: OutboxEvent[] = [];
      const byDomain = new Map<string, string[]>();
      const skipped: string[] = [];
      for (const r of recipients) {
        const s = suppressed.get(r.address.toLowerCase());
        const subscriber = list?.subscribers.get(r.address.toLowerCase());
        if (s && list) {
          skipped.push(r.address);
          continue;
        }
        const m: Message = {
          id: random.uuid(),
          workspace_id: ws.id,
          content_id: content.id,
          source: opts.source,
          from: req.from.address,
          to: r.address,
          kind: r.kind,
          subject: req.subject,
          status: s ? 'bounced' : 'queued',
          open_count: 0,
          click_count: 0,
          reply_count: 0,
          first_open_after_seconds: null,
          // A list copy has its own: a reply or a report then speaks of its one recipient.
          message_id: list ? `${random.sortable()}@${fromDomain}` : content.message_id,
          notes: opts.notes ?? [],
          error: s ? suppressedError(r.address, s) : null,
          created_at: now,
          sent_at: null,
          opened_at: null,
          clicked_at: null,
          replied_at: null,
          bounced_at: s ? now : null,
          // Its own copy's token (pixel, and later links and unsubscribe): unguessable, one per record.
          token: random.bytes(18).toString('base64url'),
          // List mail came in by no key (a campaign or a step says how): nothing to keep, and a broadcast has many.
          ...(list
            ? {}
            : {
                via: { key_id: opts.key?.id ?? null, key_prefix: opts.key?.prefix ?? null, idempotency_key: opts.idempotency?.key ?? null },
              }),
          ...(subscriber ? { subscriber: { ...subscriber } } : {}),
          ...(list?.campaign ? { campaign_id: list.campaign.id } : {}),
        };
        messages.push(m);
        if (s) {
          events.push(bouncedEvent(random.sortable(), m, now));
          continue;
        }
        const rcptDomain = r.address.slice(r.address.lastIndexOf('@') + 1).toLowerCase();
        const group = byDomain.get(rcptDomain);
        if (group) group.push(m.id);
        else byDomain.set(rcptDomain, [m.id]);
      }
      // One job per recipient domain and at most JOB_RECIPIENTS recipients (one SMTP transaction each).
      const cap = list ? LIST_JOB_RECIPIENTS : JOB_RECIPIENTS;
      const chunks = [...byDomain].flatMap(([d, ids]) =>
        Array.from({ length: Math.ceil(ids.length / cap) }, (_, k) => [d, ids.slice(k * cap, (k + 1) * cap)] as const),
      );
      const jobs: OutboundJob[] = chunks.map(([d, ids]) => ({
        id: random.sortable(),
        workspace_id: ws.id,
        content_id: content.id,
        domain: d,
        message_ids: ids,
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        last_error: null,
        // Only bulk jobs say their class; a job without one is transactional.
        ...(priorityOf(opts.source) ? { priority: priorityOf(opts.source) } : {}),
      }));
      const first = messages[0]?.id ?? '';
      const result: SendResult & { list?: ListSendResult } = {
        id: first,
        status: 'queued',
        queued: true,
        tracking_url: `/api/v2/messages/${first}`,
        recipient_count: messages.length,
        ...(list ? { list: { ids: messages.map((m) => m.id), skipped } } : {}),
      };
      return { content, messages, events, jobs, result };
    };

    // Suppressed recipients are recorded bounced, never handed off. The store checks the list in
    // the accept itself (one round trip in the usual case); only when it names someone is the list
    // read and the send built again with them marked.
    let suppressed = new Map<string, Suppression>();
    for (let round = 0; ; round++) {
      const { content, messages, events, jobs, result } = build(suppressed);
      // Every recipient counts against the send quota; the debit, the records and the completion
      // of the idempotency claim are one store call.
      const refused = await store.messages.accept({
        content,
        messages,
        jobs,
        events,
        // svc's own mail is never counted against the workspace it is sent from.
        ...(list?.debited || opts.source === 'system'
          ? {}
          : { debit: { n: messages.length, windows: opts.inbox ? inboxWindowsOf(ws, at) : sendWindowsOf(ws, at) } }),
        ...(opts.idempotency ? { idempotency: { ...opts.idempotency, response: { status: 202, body: result } } } : {}),
        unsuppressed: messages.filter((m) => m.status === 'queued').map((m) => m.to.toLowerCase()),
        ...(list?.campaign ? { campaign: { ...list.campaign, copies: list.campaign.copies + messages.length } } : {}),
        ...(list?.enrolment ? { enrolment: list.enrolment } : {}),
      });
      if (refused?.refused === 'enrolment_moved')
        throw new SvcError(
          'conflict',
          `enrolment ${opts.list?.enrolment?.id}: moved on or stopped before this step was stored (nothing stored)`,
        );
      if (refused?.refused === 'campaign_moved')
        throw new SvcError('conflict', `campaign ${list?.campaign?.id}: another fan-out moved it on first (nothing stored)`);
      if (refused?.refused === 'send_quota')
        throw sendQuotaError(refused, ws, upgradeUrlOf(deps.config, ws), opts.inbox ? 'inbox_sends' : 'api_sends');
      if (refused?.refused === 'suppressed') {
        // The list changed between two reads three times over: give up rather than loop.
        if (round >= 3) throw new SvcError('conflict', `on the suppression list: ${refused.addresses.join(', ')}`);
        suppressed = new Map((await store.suppressions.find(ws.id, [...seen])).map((x) => [x.address, x]));
        continue;
      }
      if (jobs.length) deps.bus?.publish('queued');
      if (events.length) deps.bus?.publish('outboxed');
      // The mail log's line per recipient left out for the suppression list (docs/operating.md "The log"), as
      // every other recipient gets a `delivery` line; the rest is counted, not logged.
      for (const m of messages)
        if (m.status === 'bounced') {
          const s = suppressed.get(m.to.toLowerCase());
          deps.events?.event('info', 'suppressed', {
            message: m.id,
            message_id: m.message_id,
            from: m.from,
            to: m.to,
            reason: s?.reason ?? null,
            since: s?.created_at ?? null,
          });
        }
      if (list)
        for (const address of result.list!.skipped) {
          const s = suppressed.get(address.toLowerCase());
          deps.events?.event('info', 'suppressed', {
            message: null,
            from: req.from.address,
            to: address,
            reason: s?.reason ?? null,
            since: s?.created_at ?? null,
            ...(list.campaign ? { campaign: list.campaign.id } : list.enrolment ? { enrolment: list.enrolment.id } : {}),
          });
        }
      const bounced = messages.filter((m) => m.status === 'bounced').length;
      deps.events?.tally('accepted', {
        source: opts.source,
        queued: messages.length - bounced,
        suppressed: bounced + (list ? result.list!.skipped.length : 0),
      });
      return result;
    }
  };
}
