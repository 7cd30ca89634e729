import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ComposePool } from '../../../src/send/compose-pool.js';
import type { OutboundJob, SendContent } from '../../../src/store/types.js';

const content = (html: string): SendContent => ({
  id: 'c', workspace_id: 'w', source: 'relay', from: 'hello@acme.test', from_name: null, domain_id: 'd', to: [{ name: null, address: 'jane@rcpt.test' }], cc: [],
  subject: 'Big one', html, text: null, message_id: 'm@acme.test', notes: [], created_at: '2026-11-22T10:00:00.000Z',
});
const task = (html: string) => ({ content: content(html), job: { id: 'j', open_token: 'tok' } as OutboundJob, recipients: ['jane@rcpt.test'], baseUrl: 'http://svc.test', domain: null });
const bigHtml = (mb: number) => `<p>${'Lorem ipsum dolor sit amet <b>x</b> '.repeat(Math.floor((mb * 1024 * 1024) / 36))}</p>`;

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setImmediate(r));
}

test('compose pool: a message too large for a pool thread is composed in a thread of its own', async (t) => {
  // 4 MB of HTML needs more than a pool thread's heap (a relay message may be 25 MB).
  const pool = new ComposePool({ threads: 1, threadHeapMb: 32 });
  t.after(() => pool.close());
  const raw = await pool.run(task(bigHtml(4)));
  assert.match(raw.toString('latin1', 0, 2000), /^Subject: Big one\r$/m);
  assert.ok(raw.length > 4 * 1024 * 1024);
  assert.equal(pool.liveThreads, 1);
});

test('compose pool: a pool thread that dies fails what it held and is replaced', async (t) => {
  const pool = new ComposePool({ threads: 1, threadHeapMb: 16, aloneAbove: Infinity, respawnMs: 1 });
  t.after(() => pool.close());
  await assert.rejects(pool.run(task(bigHtml(4))), /compose thread exited|out of memory/i);
  await until(() => pool.liveThreads === 1);
  const raw = await pool.run(task('<p>small</p>'));
  assert.match(raw.toString(), /small/);
});
