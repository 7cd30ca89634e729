// What the inbound MX does with mail, free of the protocol (daemon/mx.ts speaks SMTP): whose mail
// a recipient is (RCPT), whether the workspace has room (storage), and what a received message is
// and changes (DATA), stored in one call before the 250.
//
// A recipient is either an active registered address on a verified domain (its workspace's team
// inbox) or the return path of a message the service sent (mail/return-path.ts: the bounce
// reports about it). A delivery status report sent to a return path bounces the records it names
// (matched by the return path, cross-checked with the returned Message-ID); a complaint report
// suppresses the address complained about; an automatic reply is kept and never counted; a reply
// to a message of ours is threaded with its Sent copy and counted on its record; anything else for
// a registered address is mail in that inbox.
import type { Email } from 'postal-mime';
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { InboundDelivery, InboxItem, InboxKind } from '../model/inbox.js';
import type { Message } from '../model/message.js';
import type { Suppression } from '../model/suppression.js';
import type { MessageEvent } from '../model/tracking.js';
import { PLAN_LIMITS, type Workspace } from '../model/workspace.js';
import { parseMailbox } from '../mail/address.js';
import { parseReturnPath } from '../mail/return-path.js';
import { bouncedEvent } from '../send/pipeline.js';
import { classifyReply } from '../send/bounce-class.js';
import { parseWhole, readHead, type Head } from './parse.js';
import { autoReply, deliveryStatus, feedbackReport } from './reports.js';

const NO_CRLF = /[\r\n]+/g;

export type InboundDeps = DepsOf<'inbox' | 'messages' | 'addresses' | 'domains' | 'workspaces'>;

/** One accepted RCPT: the workspace it is for, and the record when it is a return path. */
export interface Recipient {
  address: string;
  workspace_id: string;
  returnPathOf: Message | null;
}

export interface Envelope {
  mailFrom: string;
  recipients: Recipient[];
  remoteIp: string | null;
}

export function inboundService(deps: InboundDeps) {
  const { store, clock, random } = deps;
  /** Workspaces by id, read again at most every few seconds (plans change rarely). */
  let workspaces: { at: number; byId: Map<string, Workspace> } | null = null;
  const workspace = async (id: string): Promise<Workspace | undefined> => {
    if (!workspaces || Date.now() - workspaces.at > 5_000 || !workspaces.byId.has(id)) workspaces = { at: Date.now(), byId: new Map((await store.workspaces.list()).map((w) => [w.id, w])) };
    return workspaces.byId.get(id);
  };

  /** The storage a workspace may use: its plan's, lowered by the operator's --storage-limit. */
  const storageLimit = async (workspaceId: string): Promise<number> => {
    const ws = await workspace(workspaceId);
    const plan = ws ? PLAN_LIMITS[ws.plan].storage_bytes : null;
    const operator = deps.config.storageLimit;
    return Math.min(plan ?? Infinity, operator ?? Infinity);
  };

  /** Refuses (452 4.2.2) when the workspace's received mail already fills its storage, or would with `adding` more bytes. */
  const checkStorage = async (workspaceId: string, adding = 0): Promise<void> => {
    const limit = await storageLimit(workspaceId);
    if (limit === Infinity) return;
    const used = await store.inbox.usage(workspaceId);
    if (used + adding > limit || (adding === 0 && used >= limit)) throw new SvcError('storage_quota');
  };

  async function recipient(input: string): Promise<Recipient> {
    const m = parseMailbox(input);
    if ('error' in m) throw new SvcError('invalid_recipient');
    const address = m.address.toLowerCase();
    const rp = parseReturnPath(address);
    if (rp) {
      const [record] = await store.messages.byIds([rp.messageId]);
      if (!record || record.from.slice(record.from.lastIndexOf('@') + 1).toLowerCase() !== rp.domain) throw new SvcError('unknown_mailbox');
      return { address, workspace_id: record.workspace_id, returnPathOf: record };
    }
    // The workspace that verified the domain is the one whose registration counts.
    const owner = await store.domains.verifiedBy(m.domain.toLowerCase());
    if (!owner) throw new SvcError('relay_denied');
    const registered = (await store.addresses.everywhere(address)).find((a) => a.workspace_id === owner && a.status === 'active');
    if (!registered) throw new SvcError('unknown_mailbox');
    return { address, workspace_id: owner, returnPathOf: null };
  }

  /** The records a report or a reply is about, in one workspace. */
  const sendOf = async (workspaceId: string, messageId: string | null): Promise<Message[]> => (messageId ? store.messages.byHeaderId(workspaceId, messageId) : []);

  type Effects = Omit<InboundDelivery, 'items' | 'raw'>;
  async function itemFor(head: Head, e: Email | null, problem: string | null, raw: Buffer, env: Envelope, workspaceId: string, rcpts: string[], now: string): Promise<{ item: InboxItem; effects: Effects }> {
    const effects: Effects = { updates: [], outbox: [], events: [], suppressions: [] };
    const { subject, messageId, inReplyTo, references } = head;
    const from = head.from ?? env.mailFrom.toLowerCase();
    const returnPath = env.recipients.find((r) => r.workspace_id === workspaceId && r.returnPathOf)?.returnPathOf ?? null;
    let kind: InboxKind = 'mail';
    let note: string | null = problem;
    let ref: Message | null = null;
    let thread: string | null = null;

    const dsn = head.report || e ? deliveryStatus(head.fields, e) : null;
    const feedback = dsn || !(head.report || e) ? null : feedbackReport(head.fields, e);
    if (dsn) {
      kind = 'bounce';
      // Only a report to a return path changes anything; its returned Message-ID must agree.
      const send = returnPath && (!dsn.original || dsn.original === returnPath.message_id) ? await sendOf(workspaceId, returnPath.message_id) : [];
      if (!send.length) note ??= returnPath ? 'the report names another message than its return path; nothing changed' : 'a delivery report that matches no message of ours; nothing changed';
      const notes: string[] = [];
      for (const r of dsn.recipients) {
        const rec = send.find((m) => m.to.toLowerCase() === r.recipient) ?? (dsn.recipients.length === 1 && send.length ? returnPath : null);
        if (!rec) continue;
        ref ??= rec;
        const said = `${r.status}${r.diagnostic ? ` ${r.diagnostic}` : ''}`.replace(NO_CRLF, ' ').slice(0, 500);
        if (r.action === 'failed' && r.status.startsWith('5')) {
          ref = rec;
          const error = `bounce report: ${said}`;
          effects.updates.push({ id: rec.id, status: 'bounced', error, bounced_at: now });
          effects.outbox.push(bouncedEvent(random.uuid(), { ...rec, error }, now));
          const c = classifyReply({ code: 550, text: said, stage: 'rcpt' }, 'direct');
          if (c.outcome === 'permanent') {
            const s: Suppression = { workspace_id: workspaceId, address: rec.to.toLowerCase(), reason: 'bounce', detail: `bounce report: ${said}`.slice(0, 500), created_at: now, message_id: rec.id, class: c.class };
            effects.suppressions.push(s);
          }
          notes.push(`${rec.to}: failed ${r.status}${c.outcome === 'permanent' ? ', suppressed' : ''}`);
        } else notes.push(`${rec.to}: ${r.action || 'unknown action'} ${r.status}`.trim());
      }
      if (notes.length) note = notes.join('; ');
      thread = returnPath ? await store.inbox.threadOf(workspaceId, [returnPath.message_id]) : null;
    } else if (feedback) {
      kind = 'complaint';
      const send = returnPath ? await sendOf(workspaceId, returnPath.message_id) : await sendOf(workspaceId, feedback.original);
      const named = [...feedback.recipients, ...(feedback.originalTo ? [feedback.originalTo] : [])];
      const rec = send.find((m) => named.includes(m.to.toLowerCase())) ?? (returnPath && send.some((m) => m.id === returnPath.id) ? returnPath : send.length === 1 ? send[0]! : null);
      if (rec) {
        ref = rec;
        effects.suppressions.push({ workspace_id: workspaceId, address: rec.to.toLowerCase(), reason: 'complaint', detail: `${feedback.type} report from ${from}`.slice(0, 500), created_at: now, message_id: rec.id });
        note = `${feedback.type} complaint about ${rec.to}; suppressed`;
        thread = await store.inbox.threadOf(workspaceId, [rec.message_id]);
      } else note ??= 'a complaint that matches no message of ours; nothing changed';
    } else {
      const about = [...(inReplyTo ? [inReplyTo] : []), ...references.slice().reverse()];
      thread = about.length ? await store.inbox.threadOf(workspaceId, about) : null;
      let send: Message[] = [];
      for (const mid of about) if ((send = await sendOf(workspaceId, mid)).length) break;
      const rec = send.find((m) => m.to.toLowerCase() === from) ?? send[0] ?? null;
      const auto = autoReply(head.fields, subject);
      if (auto) {
        kind = 'auto_reply';
        // A responder answers the envelope sender (RFC 3834): the return path names the message.
        ref = rec ?? returnPath;
        thread ??= returnPath ? await store.inbox.threadOf(workspaceId, [returnPath.message_id]) : null;
        note ??= `automatic reply (${auto}); not counted`;
      } else if (!rec && returnPath) {
        // Not a report, not an automatic reply, yet sent to a return path (a challenge-response
        // filter, a misdirected reply): kept with its message, nothing counted.
        ref = returnPath;
        thread ??= await store.inbox.threadOf(workspaceId, [returnPath.message_id]);
        note ??= 'sent to the return path of this message; not counted as a reply';
      } else if (rec) {
        kind = 'reply';
        ref = rec;
        const ev: MessageEvent = { id: random.uuid(), workspace_id: workspaceId, message_id: rec.id, kind: 'reply', prefetch: false, source: 'human', reason: 'In-Reply-To or References names this message', url: null, ip: env.remoteIp, user_agent: null, created_at: now };
        effects.events.push(ev);
      }
    }

    const item: InboxItem = {
      id: random.uuid(),
      workspace_id: workspaceId,
      folder: 'inbox',
      kind,
      thread_id: thread ?? random.uuid(),
      from,
      to: rcpts,
      cc: head.cc,
      subject,
      message_id: messageId,
      size: raw.length,
      message_ref: ref?.id ?? null,
      note,
      created_at: now,
      in_reply_to: inReplyTo,
      references,
      headers: head.headers,
      // Read from the raw message when someone reads the item (src/inbox/inbox.ts); a report was parsed already.
      text: e?.text ?? null,
      html: e?.html ?? null,
      envelope: { mail_from: env.mailFrom, rcpt_to: rcpts, remote_ip: env.remoteIp },
      // Stored once per message with the delivery (InboundDelivery.raw), given back on reads.
      raw: null,
    };
    return { item, effects };
  }

  return {
    recipient,
    checkStorage,

    /**
     * DATA: one item per workspace the message is for, and what it changes, stored in one call
     * (durable on return). Refused with 452 4.2.2 when a workspace has no room for it.
     */
    async receive(env: Envelope, raw: Buffer): Promise<InboxItem[]> {
      const byWorkspace = new Map<string, string[]>();
      for (const r of env.recipients) {
        const rcpts = byWorkspace.get(r.workspace_id);
        if (rcpts) rcpts.push(r.address);
        else byWorkspace.set(r.workspace_id, [r.address]);
      }
      for (const ws of byWorkspace.keys()) await checkStorage(ws, raw.length);
      const head = readHead(raw);
      // Only a report is parsed whole on the way in: its parts are what it says.
      const { email, problem } = head.report ? await parseWhole(raw, head) : { email: null, problem: head.problem };
      const now = clock.now().toISOString();
      const delivery: InboundDelivery = { raw, items: [], updates: [], outbox: [], events: [], suppressions: [] };
      for (const [ws, rcpts] of byWorkspace) {
        const { item, effects } = await itemFor(head, email, problem, raw, env, ws, rcpts, now);
        delivery.items.push(item);
        delivery.updates.push(...effects.updates);
        delivery.outbox.push(...effects.outbox);
        delivery.events.push(...effects.events);
        delivery.suppressions.push(...effects.suppressions);
      }
      await store.inbox.receive(delivery);
      deps.bus?.publish('received');
      if (delivery.outbox.length) deps.bus?.publish('outboxed');
      return delivery.items;
    },
  };
}

export type InboundService = ReturnType<typeof inboundService>;
