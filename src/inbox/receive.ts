// Long because what a received message is decides in one place, in order (below), and each branch
// needs the same candidates and effects; the pieces it calls are in files of their own.
//
// What the inbound MX does with mail, free of the protocol (daemon/mx.ts speaks SMTP): whose mail
// a recipient is (RCPT), whether the workspace has room (storage), and what a received message is
// and changes (DATA), stored in one call before the 250.
//
// A recipient is an active registered address on a verified domain (its workspace's team inbox),
// `postmaster@` or `abuse@` of a verified domain (RFC 5321 §4.5.1; its workspace's inbox), or the
// return path of one recipient of mail the service sent (mail/return-path.ts). Every message is
// first checked (authenticate.ts: SPF, DKIM, DMARC, ARC); a DMARC `p=reject` failure is refused;
// what is kept starts with our `Received:` and `Authentication-Results:`. Then:
// - a delivery status report (or a bounce in an older plain format) at a return path changes only
//   the recipient that return path was used for (report-effects.ts);
// - a complaint changes only such a recipient too, or, at a team-inbox address, only when it comes
//   authenticated from a feedback loop the operator named (--feedback-loops); otherwise it is
//   kept as mail;
// - automatic mail (reports.ts autoReply) and anything sent to a return path is never a reply;
// - mail at a list copy's return path with the subject `unsubscribe` (the mailto: of its
//   List-Unsubscribe) unsubscribes that copy's one subscriber;
// - a reply to a message of ours is threaded with its Sent copy, and counted on its record only
//   when its From domain vouches for it (verdict pass);
// - anything else for a registered address is mail in that inbox.
import type { Email } from 'postal-mime';
import { getDomain } from 'tldts';
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import { storageCharge, type InboundAuth, type InboundDelivery, type InboxItem, type InboxKind } from '../model/inbox.js';
import type { Message } from '../model/message.js';
import type { MessageEvent } from '../model/tracking.js';
import { PLAN_LIMITS, type Workspace } from '../model/workspace.js';
import { parseMailbox } from '../mail/address.js';
import { withoutFields } from '../mail/header-block.js';
import { parseReturnPath } from '../mail/return-path.js';
import { UNSUBSCRIBE_SUBJECT } from '../model/list.js';
import { REPORT_PARSE_MAX, parseWhole, readHead, type Head } from './parse.js';
import type { Parse } from './parse-thread.js';
import { mxRate, type MxRateLimits } from './mx-rate.js';
import { autoReply, deliveryStatus, feedbackReport, plainBounce, type Feedback } from './reports.js';
import { bounceEffects, complaintEffects, noEffects, type Candidates, type Effects, type Outcome } from './report-effects.js';
import { NOT_EVALUATED, authservOf, type Authenticated, type AuthInput } from './authenticate.js';
import { traceHeader } from './trace.js';

export type InboundDeps = DepsOf<'inbox' | 'messages' | 'addresses' | 'domains' | 'workspaces' | 'suppressions'>;

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
  /** The name the client gave in EHLO/HELO, and its reverse DNS name when known. */
  helo?: string;
  clientHostname?: string;
  /** The session ran over TLS. */
  tls?: boolean;
  /** The session's id (in the Received: field). */
  id?: string;
}

export interface InboundOptions {
  /** Checks SPF, DKIM, DMARC and ARC; absent: nothing is evaluated and nothing counts as a reply. */
  authenticate?: (input: AuthInput) => Promise<Authenticated>;
  /** Parses a whole report (the MX's: in a thread of its own, parse-thread.ts); absent: on this event loop. */
  parse?: Parse;
  /** Messages a minute per sender and per workspace (the MX's, mx-rate.ts); absent: no limit. */
  rates?: MxRateLimits;
  /**
   * Unsubscribes the subscriber of this unsubscribe token (the lists service): mail to a list
   * copy's return path with the subject `unsubscribe` is the `mailto:` of its List-Unsubscribe.
   */
  unsubscribe?: (token: string) => Promise<unknown>;
}

/** Local parts accepted on every verified domain without registration (RFC 5321 §4.5.1, RFC 2142). */
const ROLE_MAILBOXES = new Set(['postmaster', 'abuse']);

const org = (domain: string) => (getDomain(domain, { allowPrivateDomains: true }) ?? domain).toLowerCase();

export function inboundService(deps: InboundDeps, opts: InboundOptions = {}) {
  const { store, clock, random } = deps;
  /** Workspaces by id, read again at most every few seconds (plans change rarely). */
  let workspaces: { at: number; byId: Map<string, Workspace> } | null = null;
  const workspace = async (id: string): Promise<Workspace | undefined> => {
    if (!workspaces || Date.now() - workspaces.at > 5_000 || !workspaces.byId.has(id))
      workspaces = { at: Date.now(), byId: new Map((await store.workspaces.list()).map((w) => [w.id, w])) };
    return workspaces.byId.get(id);
  };
  const feedbackLoops = new Set((deps.config.feedbackLoops ?? []).map(org));
  const rate = opts.rates ? mxRate(opts.rates) : null;

  /** The storage a workspace may use: its plan's, lowered by the operator's --storage-limit. */
  const storageLimit = async (workspaceId: string): Promise<number> => {
    const ws = await workspace(workspaceId);
    const plan = ws ? PLAN_LIMITS[ws.plan].storage_bytes : null;
    const operator = deps.config.storageLimit;
    return Math.min(plan ?? Infinity, operator ?? Infinity);
  };

  /**
   * Bytes being stored right now, by workspace: counted as used, so that sessions racing to the
   * same workspace cannot each find room for their message and together overshoot it (seen: 3-9×).
   * This daemon's; daemons sharing a Postgres can each overshoot by what they have in flight.
   */
  const reserved = new Map<string, number>();
  const reserve = (workspaceId: string, bytes: number) => reserved.set(workspaceId, (reserved.get(workspaceId) ?? 0) + bytes);
  const unreserve = (workspaceId: string, bytes: number) => {
    const left = (reserved.get(workspaceId) ?? 0) - bytes;
    if (left > 0) reserved.set(workspaceId, left);
    else reserved.delete(workspaceId);
  };

  /** Refuses (452 4.2.2) when the workspace's received mail already fills its storage, or would with `adding` more bytes. */
  const checkStorage = async (workspaceId: string, adding = 0): Promise<void> => {
    const limit = await storageLimit(workspaceId);
    if (limit === Infinity) return;
    const used = (await store.inbox.usage(workspaceId)) + (reserved.get(workspaceId) ?? 0);
    if (used + adding > limit || (adding === 0 && used >= limit)) throw new SvcError('storage_quota');
  };

  /**
   * `postmaster` without a domain (RFC 5321 §4.5.1: every server takes it) is the operator's: the
   * postmaster of the --system-sender's domain, else of the MX host's domain (or the nearest
   * parent a workspace verified). Refused as unknown when the operator has neither.
   */
  async function barePostmaster(): Promise<Recipient> {
    const { systemSender, mxHost } = deps.config;
    const labels = mxHost.toLowerCase().split('.');
    const domains = [
      ...(systemSender ? [systemSender.slice(systemSender.lastIndexOf('@') + 1)] : []),
      ...labels.slice(0, -1).map((_, i) => labels.slice(i).join('.')),
    ];
    for (const domain of domains) {
      const owner = await store.domains.verifiedBy(domain);
      if (owner) return { address: `postmaster@${domain}`, workspace_id: owner, returnPathOf: null };
    }
    throw new SvcError('unknown_mailbox');
  }

  async function recipient(input: string): Promise<Recipient> {
    if (input.trim().toLowerCase() === 'postmaster') return barePostmaster();
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
    if (!registered && !ROLE_MAILBOXES.has(m.address.slice(0, m.address.lastIndexOf('@')).toLowerCase()))
      throw new SvcError('unknown_mailbox');
    return { address, workspace_id: owner, returnPathOf: null };
  }

  /** The records a report or a reply is about, in one workspace. */
  const sendOf = async (workspaceId: string, messageId: string | null): Promise<Message[]> =>
    messageId ? store.messages.byHeaderId(workspaceId, messageId) : [];

  /**
   * The records the return paths of this workspace speak for. A report that names nobody is about
   * the one record of the return path it came to (each is used for one recipient alone).
   */
  function candidatesOf(env: Envelope, workspaceId: string): Candidates {
    const rps = env.recipients.filter((r) => r.workspace_id === workspaceId && r.returnPathOf);
    const records = [...new Map(rps.map((r) => [r.returnPathOf!.id, r.returnPathOf!])).values()];
    return { records, anonymous: records.length === 1 ? records[0]! : null };
  }

  /**
   * A complaint report: at a return path, about its recipient; at a team-inbox address, only from
   * an authenticated feedback loop the operator named (who it is about: Original-Rcpt-To, else a
   * lone To: of the returned copy, of the send its Message-ID names); anywhere else kept as mail.
   */
  async function complaint(
    feedback: Feedback,
    c: Candidates,
    auth: InboundAuth,
    workspaceId: string,
    from: string,
    now: string,
  ): Promise<Outcome & { kind: InboxKind }> {
    /** Why each address is suppressed now (a not-spam report lifts a complaint's only). */
    const suppressed = async (records: Message[]) =>
      new Map<string, string>(
        (
          await store.suppressions.find(
            workspaceId,
            records.map((m) => m.to.toLowerCase()),
          )
        ).map((x) => [x.address, x.reason]),
      );
    if (c.records.length) return { kind: 'complaint', ...complaintEffects(feedback, c, from, now, await suppressed(c.records)) };
    const loop = auth.verdict === 'pass' && auth.from_domain !== null && feedbackLoops.has(org(auth.from_domain));
    if (!loop) {
      const note =
        feedbackLoops.size && auth.verdict !== 'pass'
          ? `a complaint report that is not authenticated (${auth.summary}); not acted on`
          : 'a complaint report sent to a mailbox, not to a return path or from a configured feedback loop; kept as mail, not acted on';
      return { kind: 'mail', effects: noEffects(), ref: null, note };
    }
    const send = feedback.original ? await sendOf(workspaceId, feedback.original) : [];
    if (!send.length)
      return { kind: 'complaint', effects: noEffects(), ref: null, note: 'a complaint that matches no message of ours; nothing changed' };
    const named = feedback.recipients.length || !feedback.originalTo ? feedback : { ...feedback, recipients: [feedback.originalTo] };
    return {
      kind: 'complaint',
      ...complaintEffects(named, { records: send, anonymous: send.length === 1 ? send[0]! : null }, from, now, await suppressed(send)),
    };
  }

  async function itemFor(
    head: Head,
    e: Email | null,
    problem: string | null,
    raw: Buffer,
    env: Envelope,
    auth: InboundAuth,
    workspaceId: string,
    rcpts: string[],
    now: string,
  ): Promise<{ item: InboxItem; effects: Effects; unsubscribe: string | null }> {
    let unsubscribe: string | null = null;
    let effects = noEffects();
    const { subject, messageId, inReplyTo, references } = head;
    const from = head.from ?? env.mailFrom.toLowerCase();
    const c = candidatesOf(env, workspaceId);
    const toReturnPath = c.records.length > 0;
    let kind: InboxKind = 'mail';
    let note: string | null = problem;
    let ref: Message | null = null;
    let thread: string | null = null;
    const threadOfRecord = (m: Message | null) => (m ? store.inbox.threadOf(workspaceId, [m.message_id]) : Promise.resolve(null));

    // A report, or a bounce of an older format sent to a return path (its text names who failed).
    const dsn =
      head.report || e ? (deliveryStatus(head.fields, e) ?? (toReturnPath && e?.text ? plainBounce(subject, e.text) : null)) : null;
    const feedback = dsn || !(head.report || e) ? null : feedbackReport(head.fields, e);
    if (dsn) {
      const failed = dsn.recipients.some((r) => r.action === 'failed');
      // A delay (or delivered, relayed) notice is automatic mail, never a bounce.
      kind = failed || !dsn.recipients.length ? 'bounce' : 'auto_reply';
      const o = bounceEffects(dsn, c, random, now);
      ({ effects, ref } = o);
      note = problem ?? o.note;
      thread = await threadOfRecord(ref);
    } else if (feedback) {
      const o = await complaint(feedback, c, auth, workspaceId, from, now);
      ({ kind, effects, ref } = o);
      note = problem ?? o.note;
      thread = await threadOfRecord(ref);
    } else {
      const about = [...(inReplyTo ? [inReplyTo] : []), ...references.slice().reverse()];
      thread = about.length ? await store.inbox.threadOf(workspaceId, about) : null;
      let send: Message[] = [];
      for (const mid of about) if ((send = await sendOf(workspaceId, mid)).length) break;
      const rec = send.find((m) => m.to.toLowerCase() === from) ?? send[0] ?? null;
      const auto = autoReply(head.fields, subject, env.mailFrom);
      if (auto) {
        kind = 'auto_reply';
        // A responder answers the envelope sender (RFC 3834): the return path names the message.
        ref = rec ?? c.records[0] ?? null;
        thread ??= await threadOfRecord(c.records[0] ?? null);
        note ??= `automatic mail (${auto}); not counted`;
      } else if (
        toReturnPath &&
        c.records.length === 1 &&
        c.records[0]!.subscriber &&
        subject.trim().toLowerCase() === UNSUBSCRIBE_SUBJECT
      ) {
        // The mailto: of a list copy's List-Unsubscribe: its return path is that copy's alone and
        // cannot be guessed, so the mail proves it comes from someone who had the copy.
        ref = c.records[0]!;
        unsubscribe = ref.subscriber!.unsubscribe_token;
        thread ??= await threadOfRecord(ref);
        note ??= 'an unsubscribe request (the mailto: of List-Unsubscribe); the subscriber is unsubscribed';
      } else if (toReturnPath) {
        // Sent to a return path, not a report, not marked automatic (a challenge-response filter, a
        // misdirected reply): a person never writes to a return path; kept with its message.
        ref = rec ?? c.records[0]!;
        thread ??= await threadOfRecord(c.records[0]!);
        note ??= 'sent to a return path, not to a mailbox; never counted as a reply';
      } else if (rec && auth.verdict !== 'pass') {
        // Threaded with the message, but nobody vouches for the sender: not the customer's reply.
        ref = rec;
        note ??= `not authenticated (${auth.summary}); not counted as a reply`;
      } else if (rec) {
        kind = 'reply';
        ref = rec;
        const ev: MessageEvent = {
          id: random.uuid(),
          workspace_id: workspaceId,
          message_id: rec.id,
          kind: 'reply',
          prefetch: false,
          source: 'human',
          reason: 'In-Reply-To or References names this message',
          url: null,
          ip: env.remoteIp,
          user_agent: null,
          created_at: now,
        };
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
      from_name: head.fromName,
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
      auth,
      // Stored once per message with the delivery (InboundDelivery.raw), given back on reads.
      raw: null,
    };
    return { item, effects, unsubscribe };
  }

  /** The rest of receive, once every workspace has room reserved: parsed as needed, stored in one call. */
  async function keep(env: Envelope, raw: Buffer, byWorkspace: Map<string, string[]>, auth: InboundAuth, now: Date): Promise<InboxItem[]> {
    const head = readHead(raw);
    // Only a report (and other mail to a return path: an older bounce format) is parsed whole on the way in.
    const toReturnPath = env.recipients.some((r) => r.returnPathOf);
    const parse = opts.parse ?? parseWhole;
    const { email, problem } =
      head.report || (toReturnPath && !head.problem)
        ? await parse(raw.length > REPORT_PARSE_MAX ? raw.subarray(0, REPORT_PARSE_MAX) : raw, head)
        : { email: null, problem: head.problem };
    const at = now.toISOString();
    const delivery: InboundDelivery = { raw, items: [], updates: [], outbox: [], events: [], suppressions: [], lifted: [] };
    const unsubscribes: string[] = [];
    for (const [ws, rcpts] of byWorkspace) {
      const { item, effects, unsubscribe } = await itemFor(head, email, problem, raw, env, auth, ws, rcpts, at);
      if (unsubscribe) unsubscribes.push(unsubscribe);
      delivery.items.push(item);
      delivery.updates.push(...effects.updates);
      delivery.outbox.push(...effects.outbox);
      delivery.events.push(...effects.events);
      delivery.suppressions.push(...effects.suppressions);
      delivery.lifted!.push(...effects.lifted);
    }
    await store.inbox.receive(delivery);
    for (const token of unsubscribes) await opts.unsubscribe?.(token);
    deps.bus?.publish('received');
    if (delivery.outbox.length) deps.bus?.publish('outboxed');
    return delivery.items;
  }

  return {
    recipient,
    checkStorage,

    /** MAIL FROM: deferred (451 4.7.1) while this sender has sent its minute's worth. */
    checkSender(mailFrom: string, remoteIp: string | null): void {
      if (rate?.senderFull(mailFrom, remoteIp)) throw new SvcError('mx_sender_rate');
    },

    /**
     * RCPT: the recipient, if the workspace it belongs to has room (452 4.2.2) and has not taken its
     * minute's worth of messages (451 4.7.1).
     */
    async admit(address: string): Promise<Recipient> {
      const r = await recipient(address);
      await checkStorage(r.workspace_id);
      if (rate?.workspaceFull(r.workspace_id)) throw new SvcError('mx_workspace_rate');
      return r;
    },

    /**
     * DATA: one item per workspace the message is for, and what it changes, stored in one call
     * (durable on return). Refused with 452 4.2.2 when a workspace has no room for it.
     */
    async receive(env: Envelope, received: Buffer): Promise<InboxItem[]> {
      const byWorkspace = new Map<string, string[]>();
      for (const r of env.recipients) {
        const rcpts = byWorkspace.get(r.workspace_id);
        if (rcpts) rcpts.push(r.address);
        else byWorkspace.set(r.workspace_id, [r.address]);
      }
      const checked = opts.authenticate
        ? await opts.authenticate({
            raw: received,
            fields: readHead(received).fields,
            ip: env.remoteIp ?? '0.0.0.0',
            helo: env.helo ?? '',
            mailFrom: env.mailFrom,
          })
        : null;
      const auth = checked?.auth ?? NOT_EVALUATED;
      // The domain asks that what fails its DMARC be refused: refused before anything is kept.
      if (auth.verdict === 'fail' && auth.policy === 'reject') throw new SvcError('dmarc_reject');
      const now = clock.now();
      // What is kept starts with our trace fields (RFC 5321 §4.4, RFC 8601), newest first. A result
      // arriving under our own authserv-id is a forgery (or an old one of ours): removed (RFC 8601 §5).
      const authserv = deps.config.mxHost.toLowerCase();
      const unforged = withoutFields(received, (name, value) => name === 'authentication-results' && authservOf(value) === authserv);
      const raw = Buffer.concat([Buffer.from(traceHeader(env, deps.config.mxHost, now) + (checked?.header ?? ''), 'latin1'), unforged]);
      // What is kept is what counts against storage, reserved from the check until it is stored.
      const charge = storageCharge(raw.length);
      const held: string[] = [];
      try {
        for (const ws of byWorkspace.keys()) {
          await checkStorage(ws, charge);
          reserve(ws, charge);
          held.push(ws);
        }
        // Counted before it is stored (a flood of sessions at once stays within the limit), and
        // not counted if the store did not keep it.
        const workspaceIds = [...byWorkspace.keys()];
        if (rate && !rate.take(env.mailFrom, env.remoteIp ?? null, workspaceIds)) throw new SvcError('mx_workspace_rate');
        try {
          return await keep(env, raw, byWorkspace, auth, now);
        } catch (e) {
          rate?.giveBack(env.mailFrom, env.remoteIp ?? null, workspaceIds);
          throw e;
        }
      } finally {
        for (const ws of held) unreserve(ws, charge);
      }
    },
  };
}

export type InboundService = ReturnType<typeof inboundService>;
