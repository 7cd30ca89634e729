// Store conformance: campaigns (broadcasts). Created with the send quota's debit, or refused whole;
// a fan-out batch's copies and the campaign's new position stored in one accept, refused whole when
// the campaign is no longer where the batch read from (no copy twice); active subscribers read by
// position; counts from the copies; an unsubscribe counted against the newest campaign that sent
// the subscriber a copy; statuses moved only from the named ones; workspaces kept apart; the same
// after a reopen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Campaign } from '../../../../src/model/campaign.js';
import type { List, Subscriber } from '../../../../src/model/list.js';
import type { QuotaWindow } from '../../../../src/model/quota.js';
import { type Backend, batch, fresh, ws } from './fixtures.js';

const AT = '2026-01-01T10:00:00.000Z';
const month = (limit: number | null): QuotaWindow => ({
  key: 'month:2026-01',
  window: 'month',
  limit,
  resets_at: '2026-02-01T00:00:00.000Z',
});

const campaign = (workspace_id: string, list_id: string, over: Partial<Campaign> = {}): Campaign => ({
  id: randomUUID(),
  workspace_id,
  list_id,
  from: 'hello@acme.test',
  from_name: 'Acme',
  subject: 'News',
  html: '<p>Hi {{name}}</p>',
  text: 'Hi {{name}}',
  preheader: '',
  status: 'queued',
  recipients: 3,
  cursor: 0,
  copies: 0,
  unsubscribed: 0,
  created_at: AT,
  updated_at: AT,
  fanned_out_at: null,
  ...over,
});

export function campaignsConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: rule, the stale campaign cursor (a fan-out batch from a cursor that moved is refused whole); campaigns: debited whole, fan-out batches stored with their position (never twice), counts, unsubscribes, statuses, reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('other'));
    const list: List = {
      id: randomUUID(),
      workspace_id: a.id,
      name: 'News',
      description: '',
      from_name: '',
      from_address: '',
      reply_to: '',
      double_opt_in: false,
      created_at: AT,
      updated_at: AT,
    };
    await store.lists.create(list);
    const subs: Subscriber[] = ['a', 'b', 'c', 'd', 'e'].map((x) => ({
      id: randomUUID(),
      list_id: list.id,
      workspace_id: a.id,
      email: `${x}@rcpt.test`,
      name: x.toUpperCase(),
      status: x === 'c' ? 'unsubscribed' : 'active',
      unsubscribe_token: randomBytes(32).toString('base64url'),
      tags: [],
      created_at: AT,
      updated_at: AT,
    }));
    for (const s of subs) await store.subscribers.upsert(s, { name: s.name, updated_at: AT }, null);

    // Active subscribers by position: c is skipped; the position moves past it all the same.
    const first = await store.subscribers.activeAfter(a.id, list.id, 0, 2);
    assert.deepEqual(
      first.data.map((s) => s.email),
      ['a@rcpt.test', 'b@rcpt.test'],
    );
    assert.equal(first.done, false);
    const second = await store.subscribers.activeAfter(a.id, list.id, first.cursor, 2);
    assert.deepEqual(
      second.data.map((s) => s.email),
      ['d@rcpt.test', 'e@rcpt.test'],
    );
    const end = await store.subscribers.activeAfter(a.id, list.id, second.cursor, 2);
    assert.deepEqual([end.data, end.done], [[], true]);
    assert.deepEqual((await store.subscribers.activeAfter(other.id, list.id, 0, 10)).data, [], 'another workspace reads nothing');

    // Debited whole, or refused with nothing stored.
    const refused = await store.campaigns.create(campaign(a.id, list.id, { recipients: 11 }), { n: 11, windows: [month(10)] });
    assert.deepEqual(refused, { refused: 'send_quota', window: month(10), used: 0 });
    assert.deepEqual(await store.campaigns.list(a.id), []);
    const c = campaign(a.id, list.id, { recipients: 4 });
    assert.deepEqual(await store.campaigns.create(c, { n: 4, windows: [month(10)] }), c);
    assert.deepEqual(await store.usage.get(a.id, ['month:2026-01']), { 'month:2026-01': 4 });
    assert.deepEqual(await store.campaigns.get(a.id, c.id), c);
    assert.equal(await store.campaigns.get(other.id, c.id), null);
    assert.deepEqual(
      (await store.campaigns.unfinished()).map((x) => x.id),
      [c.id],
    );

    // A batch: its copies and the position, together; the same position again is refused whole.
    const copyBatch = (emails: Subscriber[], from: number, cursor: number, copies: number, done = false) => {
      const bt = batch(
        a.id,
        emails.map((s) => s.email),
        AT,
      );
      bt.messages.forEach((m, i) =>
        Object.assign(m, {
          source: 'broadcast',
          campaign_id: c.id,
          subscriber: { id: emails[i]!.id, list_id: list.id, name: emails[i]!.name, unsubscribe_token: emails[i]!.unsubscribe_token },
        }),
      );
      return { ...bt, campaign: { id: c.id, from, cursor, copies, ...(done ? { fanned_out_at: AT } : {}) } };
    };
    const one = copyBatch([subs[0]!, subs[1]!], 0, first.cursor, 2);
    assert.equal(await store.messages.accept(one), null);
    assert.deepEqual(await store.messages.accept(copyBatch([subs[0]!, subs[1]!], 0, first.cursor, 2)), { refused: 'campaign_moved' });
    assert.equal((await store.messages.list(a.id, { limit: 100, offset: 0 })).total, 2, 'the refused batch stored nothing');
    const moved = (await store.campaigns.get(a.id, c.id))!;
    assert.deepEqual([moved.cursor, moved.copies, moved.fanned_out_at], [first.cursor, 2, null]);
    const stored = (await store.messages.get(a.id, one.messages[0]!.id))!;
    assert.equal(stored.campaign_id, c.id);
    assert.deepEqual(stored.subscriber, one.messages[0]!.subscriber);
    assert.equal(await store.messages.accept(copyBatch([subs[3]!, subs[4]!], first.cursor, second.cursor, 4, true)), null);
    const done = (await store.campaigns.get(a.id, c.id))!;
    assert.deepEqual([done.cursor, done.copies, done.fanned_out_at], [second.cursor, 4, AT]);

    // Counts from the copies.
    assert.deepEqual(await store.campaigns.counts(a.id, c.id), { queued: 4, sent: 0, bounced: 0, opened: 0, clicked: 0 });
    const job = (await store.queue.claim('w', AT, 60_000, 10)).find((j) => j.message_ids.includes(one.messages[0]!.id))!;
    await store.queue.complete(job.id, {
      updates: [
        { id: one.messages[0]!.id, status: 'sent', sent_at: AT },
        { id: one.messages[1]!.id, status: 'bounced', error: 'x', bounced_at: AT },
      ],
      events: [],
      suppressions: [],
    });
    assert.deepEqual(await store.campaigns.counts(a.id, c.id), { queued: 2, sent: 1, bounced: 1, opened: 0, clicked: 0 });
    assert.deepEqual(await store.campaigns.counts(other.id, c.id), { queued: 0, sent: 0, bounced: 0, opened: 0, clicked: 0 });

    // An unsubscribe counts against the newest campaign that sent the subscriber a copy.
    const later = campaign(a.id, list.id, { recipients: 1, created_at: '2026-01-01T11:00:00.000Z' });
    await store.campaigns.create(later, { n: 1, windows: [month(10)] });
    await store.campaigns.countUnsubscribe(a.id, subs[0]!.id);
    await store.campaigns.countUnsubscribe(other.id, subs[1]!.id);
    await store.campaigns.countUnsubscribe(a.id, subs[2]!.id);
    assert.equal((await store.campaigns.get(a.id, c.id))!.unsubscribed, 1);
    assert.equal((await store.campaigns.get(a.id, later.id))!.unsubscribed, 0);

    // Statuses move only from the named ones.
    assert.equal((await store.campaigns.setStatus(a.id, c.id, 'sending', ['queued'], AT))!.status, 'sending');
    assert.equal(await store.campaigns.setStatus(a.id, c.id, 'sending', ['queued'], AT), null);
    assert.equal(await store.campaigns.setStatus(other.id, later.id, 'cancelled', ['queued', 'sending'], AT), null);
    assert.equal(
      (await store.campaigns.setStatus(a.id, later.id, 'cancelled', ['queued', 'sending'], '2026-01-01T12:00:00.000Z'))!.updated_at,
      '2026-01-01T12:00:00.000Z',
    );
    assert.deepEqual(
      (await store.campaigns.list(a.id)).map((x) => [x.id, x.status]),
      [
        [later.id, 'cancelled'],
        [c.id, 'sending'],
      ],
    );
    assert.deepEqual(
      (await store.campaigns.unfinished()).map((x) => x.id),
      [c.id],
    );
    assert.deepEqual(await store.campaigns.list(other.id), []);

    // Two fan-outs storing from the same position at once (two daemons): one is refused whole.
    const race = campaign(a.id, list.id, { recipients: 2 });
    await store.campaigns.create(race, { n: 2, windows: [month(null)] });
    const racer = () => {
      const bt = batch(a.id, ['a@rcpt.test', 'b@rcpt.test'], AT);
      bt.messages.forEach((m) => Object.assign(m, { source: 'broadcast', campaign_id: race.id }));
      return { ...bt, campaign: { id: race.id, from: 0, cursor: first.cursor, copies: 2 } };
    };
    const outcomes = await Promise.all([store.messages.accept(racer()), store.messages.accept(racer())]);
    assert.deepEqual(outcomes.map((o) => (o === null ? 'stored' : o.refused)).sort(), ['campaign_moved', 'stored']);
    assert.deepEqual(await store.campaigns.counts(a.id, race.id), { queued: 2, sent: 0, bounced: 0, opened: 0, clicked: 0 });

    // After a reopen: the same.
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    const kept = (await again.campaigns.get(a.id, c.id))!;
    assert.deepEqual([kept.status, kept.cursor, kept.copies, kept.fanned_out_at, kept.unsubscribed], ['sending', second.cursor, 4, AT, 1]);
    assert.equal((await again.campaigns.get(a.id, later.id))!.status, 'cancelled');
    assert.deepEqual(await again.usage.get(a.id, ['month:2026-01']), { 'month:2026-01': 7 });
    assert.deepEqual(await again.campaigns.counts(a.id, c.id), { queued: 2, sent: 1, bounced: 1, opened: 0, clicked: 0 });
    assert.deepEqual(await again.messages.accept(copyBatch([subs[4]!], 0, 1, 5)), { refused: 'campaign_moved' });
  });
}
