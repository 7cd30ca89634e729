// src/lists/: newsletter lists and subscribers (spec.md "List", "Subscriber", "Subscriber status",
// "Lists", "Subscribers").
//
// The rules REST and the CLI share: a list's name is required; its from_address, when given, must
// be an active address on a verified domain of the workspace (the error names it); reply_to is an
// empty string when unset. A subscriber's email is trimmed, validated in linear time and stored
// lower-cased; the same email again on a list updates the name (and the tags when sent) and never
// the status; a new address past the plan's newsletter contacts answers 402. Unsubscribing adds the
// address to the workspace's suppression list (reason unsubscribe).
import { upgradeUrlOf } from '../config.js';
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import { unsubscribeUrl, type ListPatch, type ListWithCount, type Subscriber } from '../model/list.js';
import type { Workspace } from '../model/workspace.js';
import { parseMailbox } from '../mail/address.js';
import { csvOfBody, listInput, listView, subscribeRow, subscriberInput, subscriberQuery, subscriberView } from './fields.js';

export { listView, subscriberView, subscriberEmail } from './fields.js';
import { createdOrLimit, limitFor } from '../workspaces/quota.js';
import { assertWritable } from '../workspaces/trial.js';
import type { SystemMail } from '../people/system-mail.js';
import { registeredSender } from '../send/sender.js';
import { csvImporter, csvText, type CsvSource } from './import.js';
import { keptSecret } from '../kept-secret.js';
import { html } from '../html.js';
import { enroller } from '../sequences/enrol.js';
import { CONFIRM_DAYS, CONFIRM_KEY, CONFIRM_PATH, CONFIRM_RESEND_MS, confirmCode, readConfirmCode } from './confirm.js';
import type { SendOptions, SendRequest, SendResult } from '../model/send.js';

export { SUBSCRIBER_PAGE, SUBSCRIBER_PAGE_MAX } from './fields.js';
export { UNSUBSCRIBE_PATH } from '../model/list.js';
const UNSUBSCRIBE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

type Send = (ws: Workspace, req: SendRequest, opts: SendOptions) => Promise<SendResult>;

export function listService(
  {
    store,
    clock,
    random,
    config,
    log,
    events,
    bus,
  }: DepsOf<'lists' | 'subscribers' | 'domains' | 'addresses' | 'suppressions' | 'secrets' | 'campaigns' | 'sequences'>,
  send: Send,
  systemMail: SystemMail,
) {
  const now = () => clock.now().toISOString();
  const importCsv = csvImporter({ store, clock, random, config });
  const confirmKey = keptSecret(store, random, CONFIRM_KEY);
  const enrol = enroller({ store, clock, random, config, log, events, bus });

  /**
   * The one confirmation email of a pending subscriber of a double opt-in list, through the one
   * pipeline from the list's sender; none again within an hour of the last.
   */
  async function sendConfirmation(ws: Workspace, l: ListWithCount, s: Subscriber): Promise<void> {
    const at = clock.now();
    if (s.confirm_sent_at && at.getTime() - Date.parse(s.confirm_sent_at) < CONFIRM_RESEND_MS) return;
    const expires = Math.floor(at.getTime() / 1000) + CONFIRM_DAYS * 86_400;
    const url = `${config.baseUrl}${CONFIRM_PATH}${confirmCode(await confirmKey(), s.unsubscribe_token, expires)}`;
    const subject = `Confirm your subscription to ${l.name}`;
    const text = `Please confirm that you want to receive ${l.name} at ${s.email}:\n\n${url}\n\nThe link works for ${CONFIRM_DAYS} days. If you did not ask for this, ignore this message: you will not be subscribed.\n`;
    if (!l.from_address) {
      // A list without a sender of its own: from the system sender, once per link.
      if (!(await systemMail.send(`confirm:${s.id}:${expires}`, { to: s.email, subject, text })))
        throw new SvcError(
          'invalid_request',
          `list ${l.id} has no from_address and --system-sender cannot send: its confirmation email was not sent`,
        );
      await store.subscribers.confirmSent(ws.id, l.id, s.id, at.toISOString());
      return;
    }
    await send(
      ws,
      {
        from: { name: l.from_name || null, address: l.from_address },
        to: [{ name: null, address: s.email }],
        cc: [],
        bcc: [],
        subject,
        text,
        html: html`<p>Please confirm that you want to receive <strong>${l.name}</strong> at ${s.email}:</p>\n<p><a href="${url}">Confirm my subscription</a></p>\n<p>The link works for ${CONFIRM_DAYS} days. If you did not ask for this, ignore this message: you will not be subscribed.</p>\n`
          .text,
      },
      { source: 'confirmation' },
    );
    await store.subscribers.confirmSent(ws.id, l.id, s.id, at.toISOString());
  }

  /** What a confirmation link is for: the subscriber with its list's name, `expired`, or null. */
  async function confirmation(code: string): Promise<{ subscriber: Subscriber; list: string } | 'expired' | null> {
    const read = readConfirmCode(await confirmKey(), code, Math.floor(clock.now().getTime() / 1000));
    if (read === null || read === 'expired') return read;
    return findToken(read.token);
  }

  async function list(ws: Workspace, id: string): Promise<ListWithCount> {
    const l = await store.lists.get(ws.id, id);
    if (!l) throw new SvcError('not_found', 'list not found');
    return l;
  }

  /** A list's default sender must be able to send: named in the error when it cannot. */
  async function checkSender(ws: Workspace, address: string): Promise<string> {
    if (address === '') return '';
    const m = parseMailbox(address.trim());
    if ('error' in m) throw new SvcError('invalid_request', `from_address '${address}' is not a valid email: ${m.error}`);
    const registered = await registeredSender(store, ws, m.address);
    if ('why' in registered)
      throw new SvcError(
        'invalid_request',
        `from_address '${m.address}' is not an active address on a verified domain of this workspace: ${registered.why}`,
      );
    return m.address.toLowerCase();
  }

  /** A list's fields as stored: the sender checked against the workspace, reply_to a valid address. */
  async function patchOf(ws: Workspace, input: ReturnType<typeof listInput>): Promise<ListPatch> {
    const patch: ListPatch = { ...input };
    if (input.from_address !== undefined) patch.from_address = await checkSender(ws, input.from_address);
    if (patch.reply_to) {
      const m = parseMailbox(patch.reply_to.trim());
      if ('error' in m) throw new SvcError('invalid_request', `reply_to '${patch.reply_to}' is not a valid email: ${m.error}`);
      patch.reply_to = m.address;
    }
    return patch;
  }

  /** Where unsubscribing leaves the address: suppressed for the workspace (it is never mailed again). */
  /** An unsubscribed subscriber: suppressed, and out of every sequence (spec.md "Subscriber status"). */
  async function suppress(s: Subscriber): Promise<void> {
    await store.sequences.stop(s.workspace_id, s.id, 'unsubscribed', now());
    await store.suppressions.add({
      workspace_id: s.workspace_id,
      address: s.email,
      reason: 'unsubscribe',
      detail: `unsubscribed from list ${s.list_id}`,
      created_at: now(),
    });
  }

  /** A double opt-in list sends its confirmation emails from its from_address, or else from the system sender: one of them must exist. */
  async function needsSender(doubleOptIn: boolean, from: string): Promise<void> {
    if (doubleOptIn && !from && !(await systemMail.ready())) {
      throw new SvcError(
        'invalid_request',
        'a double opt-in list needs a from_address: its confirmation emails are sent from it (or from --system-sender, which is not set)',
      );
    }
  }

  /** A CSV import into a list of a writable workspace (import.ts). */
  async function importInto(
    ws: Workspace,
    listId: string,
    source: CsvSource,
    progress?: (rows: number) => void,
    opts: { dryRun?: boolean } = {},
  ) {
    assertWritable(ws, clock.now());
    await list(ws, listId);
    if (opts.dryRun) return importCsv(ws, listId, source, progress, opts);
    // Imported rows are active: those new to the list (after this position) join its sequences.
    const before = await store.subscribers.lastPosition(ws.id, listId);
    const result = await importCsv(ws, listId, source, progress);
    await enrol.since(ws.id, listId, before);
    return result;
  }

  async function findToken(token: string): Promise<{ subscriber: Subscriber; list: string } | null> {
    if (!UNSUBSCRIBE_TOKEN.test(token)) return null;
    return store.subscribers.byToken(token);
  }

  return {
    async list(ws: Workspace) {
      return (await store.lists.listByWorkspace(ws.id)).map(listView);
    },

    async get(ws: Workspace, id: string) {
      return listView(await list(ws, id));
    },

    async create(ws: Workspace, body: unknown) {
      assertWritable(ws, clock.now());
      const input = listInput(body, true);
      const name = input.name!;
      const patch = await patchOf(ws, input);
      await needsSender(patch.double_opt_in ?? false, patch.from_address ?? '');
      const at = now();
      const created = await store.lists.create({
        id: random.uuid(),
        workspace_id: ws.id,
        name,
        description: patch.description ?? '',
        from_name: patch.from_name ?? '',
        from_address: patch.from_address ?? '',
        reply_to: patch.reply_to ?? '',
        double_opt_in: patch.double_opt_in ?? false,
        created_at: at,
        updated_at: at,
      });
      return listView(created);
    },

    async update(ws: Workspace, id: string, body: unknown) {
      assertWritable(ws, clock.now());
      const input = listInput(body, false);
      const had = await list(ws, id);
      const patch = await patchOf(ws, input);
      await needsSender(patch.double_opt_in ?? had.double_opt_in, patch.from_address ?? had.from_address);
      const updated = await store.lists.update(ws.id, id, patch, now());
      if (!updated) throw new SvcError('not_found', 'list not found');
      return listView(updated);
    },

    /** Gone at once for every read; what it leaves behind goes in batches after the answer. */
    /**
     * Removes the list and its subscribers. Its broadcasts are cancelled and its sequences removed
     * first (their enrolments stopped), so no copy leaves for a list that is gone, with an
     * unsubscribe link that would answer 404; copies already made are held back at hand-off.
     */
    async remove(ws: Workspace, id: string): Promise<void> {
      await list(ws, id);
      const at = now();
      let cancelled = 0;
      for (const c of await store.campaigns.list(ws.id))
        if (c.list_id === id && (await store.campaigns.setStatus(ws.id, c.id, 'cancelled', ['queued', 'sending'], at))) cancelled++;
      for (const s of await store.sequences.list(ws.id)) if (s.list_id === id) await store.sequences.remove(ws.id, s.id);
      if (!(await store.lists.remove(ws.id, id))) throw new SvcError('not_found', 'list not found');
      // The fan-out stops, and the delivery worker bounces the cancelled copies it holds (unsent).
      if (cancelled) {
        bus?.publish('campaign');
        bus?.publish('queued');
      }
      void store.lists.sweep().catch((e: Error) => log.warn(`lists: removing the subscribers of a removed list: ${e.message}`));
    },

    async subscribers(
      ws: Workspace,
      listId: string,
      q: { status?: string | undefined; limit?: string | number | undefined; offset?: string | number | undefined },
    ) {
      const query = subscriberQuery(q);
      await list(ws, listId);
      const page = await store.subscribers.list(ws.id, listId, query);
      return { data: page.data.map(subscriberView), total: page.total };
    },

    /** POST subscribers: 201 with the subscriber, new or updated. */
    async subscribe(ws: Workspace, listId: string, body: unknown) {
      assertWritable(ws, clock.now());
      const { email, name, tags } = subscriberInput(body);
      const l = await list(ws, listId);
      const { s, update } = subscribeRow(random, ws, listId, { email, name, tags }, l.double_opt_in ? 'pending' : 'active', now());
      const r = await store.subscribers.upsert(s, update, limitFor(ws, 'contacts'));
      const { subscriber, created } = createdOrLimit(r, ws, upgradeUrlOf(config, ws));
      if (l.double_opt_in && subscriber.status === 'pending') await sendConfirmation(ws, l, subscriber);
      if (created) await enrol.active(ws.id, listId, [subscriber]);
      return subscriberView(subscriber);
    },

    /** POST .../subscribers/import: `{csv}` (400 `csv body required` without one), then importCsv. */
    async importBody(ws: Workspace, listId: string, body: unknown) {
      return importInto(ws, listId, csvText(csvOfBody(body)));
    },

    /** A CSV import (import.ts). */
    importCsv: importInto,

    async subscriber(ws: Workspace, listId: string, id: string) {
      await list(ws, listId);
      const s = await store.subscribers.get(ws.id, listId, id);
      if (!s) throw new SvcError('not_found', 'subscriber not found');
      return subscriberView(s);
    },

    async unsubscribe(ws: Workspace, listId: string, id: string) {
      await list(ws, listId);
      const s = await store.subscribers.setStatus(ws.id, listId, id, 'unsubscribed', now());
      if (!s) throw new SvcError('not_found', 'subscriber not found');
      await suppress(s);
      return subscriberView(s);
    },

    /** The subscriber's unsubscribe URL (CONTRACT.md): the same for the link in the body and for List-Unsubscribe. */
    unsubscribeUrl(s: Pick<Subscriber, 'unsubscribe_token'>): string {
      return unsubscribeUrl(config.baseUrl, s.unsubscribe_token);
    },

    /** Who an unsubscribe URL is for, with the list's name (for its page); null for an unknown or altered token. */
    byToken: findToken,

    /**
     * The unsubscribe URL posted to (RFC 8058 one-click, or the page's button): unsubscribed and
     * suppressed; again is the same answer. null for an unknown or altered token.
     */
    async unsubscribeByToken(token: string, via = 'unsubscribe link'): Promise<{ subscriber: Subscriber; list: string } | null> {
      const found = await findToken(token);
      if (!found) return null;
      const s = found.subscriber;
      if (s.status !== 'unsubscribed') {
        const done = await store.subscribers.setStatus(s.workspace_id, s.list_id, s.id, 'unsubscribed', now());
        if (!done) return null;
        await suppress(done);
        // Through a copy's link or header: the campaign that sent it counts it.
        await store.campaigns.countUnsubscribe(s.workspace_id, s.id);
        events?.event('info', 'subscriber unsubscribed', { workspace: s.workspace_id, list: s.list_id, subscriber: s.id, via });
        return { subscriber: done, list: found.list };
      }
      return found;
    },

    /** A confirmation link opened (GET shows its page): the subscriber, `expired`, or null. */
    confirmation,

    /** A confirmation link posted to: a pending subscriber becomes active (then the list's sequences will enrol it); again is the same. */
    async confirm(code: string): Promise<{ subscriber: Subscriber; list: string } | 'expired' | null> {
      const found = await confirmation(code);
      if (found === null || found === 'expired' || found.subscriber.status !== 'pending') return found;
      const s = found.subscriber;
      const done = await store.subscribers.setStatus(s.workspace_id, s.list_id, s.id, 'active', now());
      if (!done) return null;
      events?.event('info', 'subscriber confirmed', { workspace: s.workspace_id, list: s.list_id, subscriber: s.id });
      await enrol.active(s.workspace_id, s.list_id, [done]);
      return { subscriber: done, list: found.list };
    },

    async removeSubscriber(ws: Workspace, listId: string, id: string): Promise<void> {
      await list(ws, listId);
      if (!(await store.subscribers.remove(ws.id, listId, id))) throw new SvcError('not_found', 'subscriber not found');
    },
  };
}

export type ListService = ReturnType<typeof listService>;
