import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ComposeAborted, ComposePool } from '../../../src/send/compose-pool.js';
import { checkHtmlDepth, htmlDepth, PoisonMessage } from '../../../src/send/poison.js';
import type { SendContent } from '../../../src/model/message.js';

const content = (html: string): SendContent => ({
  id: 'c',
  workspace_id: 'w',
  source: 'relay',
  from: 'hello@acme.test',
  from_name: null,
  domain_id: 'd',
  to: [{ name: null, address: 'jane@rcpt.test' }],
  cc: [],
  subject: 'Big one',
  html,
  text: null,
  message_id: 'm@acme.test',
  notes: [],
  created_at: '2026-11-22T10:00:00.000Z',
});
const task = (html: string) => ({
  content: content(html),
  copy: { recipients: ['jane@rcpt.test'], token: null },
  baseUrl: 'http://svc.test',
  domain: null,
});
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

const nested = (levels: number) => '<div>'.repeat(levels) + 'deep' + '</div>'.repeat(levels);

test('poison: HTML nested deeper than composing can go is refused as poison, in a thread, inline and alone', async (t) => {
  assert.equal(htmlDepth('<p>a<p>b<br><img src=x><div><b>x</b></div>'), 2, 'implied ends and void elements as a browser has them');
  assert.equal(htmlDepth('<b>'.repeat(5000)), 5000, 'unclosed tags nest');
  // At the limit: 1,000 tags pass without being read (none more can nest), one more is read and refused.
  assert.doesNotThrow(() => checkHtmlDepth('<b>'.repeat(1000) + ' '.repeat(100)));
  assert.throws(() => checkHtmlDepth('<b>'.repeat(1001)), /nested 1001 levels deep/);
  assert.doesNotThrow(() => checkHtmlDepth('<p>x</p>'.repeat(2000)), 'many tags, shallow');
  // About 500 KB of nesting (the case that overflowed the stack and was retried for 4 hours).
  const html = nested(50_000);
  for (const opts of [{ threads: 1 }, { threads: 0 }, { threads: 1, aloneAbove: 1000 }]) {
    const pool = new ComposePool(opts);
    t.after(() => pool.close());
    await assert.rejects(
      pool.run(task(html)),
      (e) =>
        e instanceof PoisonMessage &&
        /message could not be composed: its HTML is nested 50000 levels deep \(at most 1000\)/.test(e.message),
      JSON.stringify(opts),
    );
  }
  // Deep but within the limit: composed.
  const pool = new ComposePool({ threads: 1 });
  t.after(() => pool.close());
  assert.match((await pool.run(task(nested(900)))).toString(), /deep/);
});

test('poison: a message over the time budget is poison; its thread is ended and replaced', async (t) => {
  const pool = new ComposePool({ threads: 1, budgetMs: 1, respawnMs: 1 });
  t.after(() => pool.close());
  await assert.rejects(pool.run(task(bigHtml(0.4))), (e) => e instanceof PoisonMessage && /composing took longer than 0 s/.test(e.message));
  await until(() => pool.liveThreads === 1);
  // The same in a thread of its own.
  const alone = new ComposePool({ threads: 0, aloneAbove: 1000, budgetMs: 1 });
  t.after(() => alone.close());
  await assert.rejects(alone.run(task(bigHtml(0.4))), PoisonMessage);
});

test('compose pool: close abandons what is being composed (ComposeAborted), so a stop is never held up', async () => {
  for (const opts of [{ threads: 1 }, { threads: 0, aloneAbove: 1000 }]) {
    const pool = new ComposePool(opts);
    const running = assert.rejects(pool.run(task(bigHtml(2))), ComposeAborted);
    await pool.close();
    await running;
    await assert.rejects(pool.run(task('<p>x</p>')), ComposeAborted);
  }
});

test('compose pool: large messages take turns in threads of their own (memory stays bounded)', async (t) => {
  const pool = new ComposePool({ threads: 1, aloneAbove: 1000 });
  t.after(() => pool.close());
  let most = 0;
  const watch = setInterval(() => (most = Math.max(most, pool.aloneThreads)), 1);
  const raws = await Promise.all([1, 2, 3].map((n) => pool.run(task(`<p>${`message ${n} `.repeat(20_000)}</p>`))));
  clearInterval(watch);
  raws.forEach((raw, i) => assert.match(raw.toString('latin1', raw.length - 2000), new RegExp(`message ${i + 1}`)));
  assert.equal(most, 1);
});

test('compose pool: bulk copies queue in the pool beyond two per thread; other mail goes straight to a thread', async (t) => {
  const pool = new ComposePool({ threads: 1, aloneAbove: Infinity });
  t.after(() => pool.close());
  const bulk = (n: number) => ({
    ...task(`<p>${`copy ${n} `.repeat(2_000)}</p>`),
    content: { ...content(`<p>${`copy ${n} `.repeat(2_000)}</p>`), source: 'broadcast' as const },
  });
  const done: string[] = [];
  const all = Array.from({ length: 12 }, (_, n) => pool.run(bulk(n)).then(() => done.push(`b${n}`)));
  // Queued after twelve bulk copies, composed after at most the two a thread holds (and the one running).
  all.push(pool.run(task('<p>password reset</p>')).then(() => done.push('reset')));
  await Promise.all(all);
  assert.ok(done.indexOf('reset') <= 3, `the reset finished ${done.indexOf('reset') + 1}th: ${done.join(' ')}`);
  assert.equal(done.length, 13);
});

test('compose pool: its threads run at a lower priority than the event loop (Linux: a nice value per thread)', async (t) => {
  const { existsSync, readdirSync, readFileSync } = await import('node:fs');
  if (!existsSync('/proc/thread-self')) return t.skip('no /proc/thread-self: not Linux');
  const nice = (tid: string) =>
    Number(
      readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ')[16],
    );
  const before = new Set(readdirSync('/proc/self/task'));
  const pool = new ComposePool({ threads: 1 });
  t.after(() => pool.close());
  await pool.run(task('<p>warm</p>'));
  const fresh = readdirSync('/proc/self/task').filter((tid) => !before.has(tid));
  assert.ok(
    fresh.some((tid) => nice(tid) >= 10),
    `a new thread at nice 10 or more (new threads: ${fresh.map((tid) => `${tid}=${nice(tid)}`).join(' ')})`,
  );
  assert.equal(nice(String(process.pid)), 0, 'the event loop keeps its priority');
});
