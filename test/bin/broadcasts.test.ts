// `svc broadcasts` through the real binary beside a running daemon: send (bodies from files), list,
// show, watch (NDJSON until the campaign is sent; on a terminal a live view, coloured but for
// NO_COLOR), cancel, and the exit codes of bad input. Then a daemon killed in the middle of a
// 20,000-copy fan-out: after a restart every active subscriber has exactly one copy record (none
// lost, none doubled). Both backends where it matters.
import { test } from 'node:test';
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json, serve, cliSender } from '../helpers/cli.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { tmpDir } from '../helpers/tmp.js';
import { COLOUR, noTerminal, onTerminal, unescaped } from '../helpers/terminal.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';
import { until } from '../helpers/until.js';

const backends = ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])];

for (const backend of backends) {
  test(`${backend}: svc broadcasts send, list, show, watch and cancel beside a daemon`, async (t) => {
    const dns = await fixtureDns(t);
    const s = await sink(t);
    const store = backend === 'postgres' ? await migratedSchemaUrl(t) : `file:${await tmpDir(t)}`;
    const base = ['--store', store, '--dns-server', dns.server];
    await cliSender(base, dns);
    const d = await serve([...base, '--direct-port', String(s.port)]);
    t.after(() => d.stop('SIGKILL'));
    const list = json(await svc([...base, 'lists', 'create', 'News', '--from-address', 'hello@acme.test', '--json']));
    for (const [email, name] of [
      ['jane@rcpt.test', 'Jane'],
      ['bob@rcpt.test', ''],
      ['carol@rcpt.test', 'Carol'],
    ]) {
      json(await svc([...base, 'subscribers', 'add', list.id, email!, ...(name ? ['--name', name] : []), '--json']));
    }
    const dir = await tmpDir(t);
    const html = join(dir, 'june.html');
    await writeFile(html, '<p>Hi {{first_name|there}}</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>');

    // Bad input: usage errors exit 2, an unknown list 1; nothing is queued.
    const noSubject = await svc([...base, 'broadcasts', 'send', list.id, '--html', html]);
    assert.deepEqual([noSubject.code, noSubject.stderr.trim()], [2, 'svc: missing --subject']);
    const noFile = await svc([...base, 'broadcasts', 'send', list.id, '--subject', 'June', '--html', join(dir, 'missing.html')]);
    assert.equal(noFile.code, 2);
    assert.match(noFile.stderr, /^svc: cannot read --html .*missing\.html: ENOENT/);
    assert.equal(
      (await svc([...base, 'broadcasts', 'send', '00000000-0000-4000-8000-000000000000', '--subject', 'June', '--html', html])).code,
      1,
    );
    const stranger = await svc([
      ...base,
      'broadcasts',
      'send',
      list.id,
      '--subject',
      'June',
      '--html',
      html,
      '--from-address',
      'x@acme.test',
    ]);
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /from address 'x@acme\.test' is not registered for this account/);
    assert.deepEqual(json(await svc([...base, 'broadcasts', 'list', '--json'])), []);

    const sent = json(
      await svc([...base, 'broadcasts', 'send', list.id, '--subject', 'June news', '--html', html, '--preheader', 'What is new', '--json']),
    );
    assert.deepEqual(Object.keys(sent).sort(), ['campaign_id', 'message', 'status']);
    assert.equal(sent.status, 'queued');
    // watch, not on a terminal, with --json: one document per change, until the campaign is sent.
    const watched = await svc([...base, 'broadcasts', 'watch', sent.campaign_id, '--json']);
    assert.equal(watched.code, 0, watched.stderr);
    const docs = watched.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const last = docs.at(-1)!;
    assert.equal(last.status, 'sent');
    assert.deepEqual([last.done, last.total, last.counts.sent, last.counts.queued], [3, 3, 3, 0]);
    assert.equal(s.received.length, 3);
    const plain = await svc([...base, 'broadcasts', 'watch', sent.campaign_id]);
    assert.match(plain.stdout, /^\d\d:\d\d:\d\d {2}sent {2}3\/3 \(100%\) {2}sent 3 {2}bounced 0/);
    if (backend === 'file' && !noTerminal) {
      // On a terminal: the live view, coloured unless NO_COLOR is set; a sent campaign ends it (exit 0).
      const onScreen = (env: Record<string, string>) => onTerminal({ args: [...base, 'broadcasts', 'watch', sent.campaign_id], env });
      const coloured = await onScreen({});
      assert.equal(coloured.code, 0, coloured.out);
      assert.match(unescaped(coloured.out), /100% · 3\/3 · sent/);
      assert.match(coloured.out, COLOUR, 'colour on a terminal');
      const bare = await onScreen({ NO_COLOR: '1' });
      assert.equal(bare.code, 0, bare.out);
      assert.match(unescaped(bare.out), /sent 3 · bounced 0/);
      assert.doesNotMatch(bare.out, COLOUR, 'no colour with NO_COLOR');
    }

    const shown = json(await svc([...base, 'broadcasts', 'show', sent.campaign_id, '--json']));
    assert.deepEqual([shown.status, shown.recipients, shown.copies, shown.counts.sent, shown.subject], ['sent', 3, 3, 3, 'June news']);
    const listed = await svc([...base, 'broadcasts', 'list']);
    assert.match(listed.stdout, /^CREATED_AT +STATUS +RECIPIENTS +COPIES +SUBJECT +LIST_ID +ID\n\S+ +sent +3 +3 +June news /);
    const late = await svc([...base, 'broadcasts', 'cancel', sent.campaign_id]);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /campaign \S+ is sent: only a queued or sending campaign can be cancelled/);
    assert.equal((await svc([...base, 'broadcasts', 'show', '00000000-0000-4000-8000-000000000000'])).code, 1);
    assert.equal(await d.stop(), 0);
  });
}

for (const backend of backends) {
  test(`${backend}: a daemon killed mid-fan-out: after a restart each subscriber has exactly one copy`, async (t) => {
    const dns = await fixtureDns(t);
    const store = backend === 'postgres' ? await migratedSchemaUrl(t) : `file:${await tmpDir(t)}`;
    const base = ['--store', store, '--dns-server', dns.server];
    await cliSender(base, dns);
    const list = json(await svc([...base, 'lists', 'create', 'News', '--from-address', 'hello@acme.test', '--json']));
    const dir = await tmpDir(t);
    const csv = join(dir, 'all.csv');
    // Enough subscribers for the fan-out to be killed part way (it makes copies in batches); the full
    // 20,000 with SVC_FANOUT_SUBSCRIBERS.
    const N = Number(process.env.SVC_FANOUT_SUBSCRIBERS ?? 5_000);
    await writeFile(csv, ['email', ...Array.from({ length: N }, (_, i) => `r${i}@rcpt${i % 20}.test`)].join('\n'));
    json(await svc([...base, 'subscribers', 'import', list.id, csv, '--json']));
    const html = join(dir, 'b.html');
    await writeFile(html, '<p>Hi {{email}}</p>');
    // Hand-off off: the copies stay queued, so their records are what is counted.
    const flags = [...base, '--no-delivery'];
    const d1 = await serve(flags);
    t.after(() => d1.stop('SIGKILL'));
    const sent = json(await svc([...base, 'broadcasts', 'send', list.id, '--subject', 'Big', '--html', html, '--json']));
    // The first batch of copies is stored: killed at once. On the embedded store the test reads
    // svc.db itself beside the daemon (a command's start would take longer than the whole fan-out).
    if (backend === 'file') {
      const db = new Database(join(store.slice('file:'.length), 'svc.db'), { readonly: true });
      const copies = db.prepare('SELECT copies FROM campaigns WHERE id = ?').pluck();
      const deadline = Date.now() + 120_000;
      while (!((copies.get(sent.campaign_id) as number | undefined) ?? 0)) {
        if (Date.now() > deadline) throw new Error('no copies in 120 s');
        await new Promise((r) => setImmediate(r));
      }
      db.close();
    } else
      await until(
        'the first copies',
        async () => json(await svc([...base, 'broadcasts', 'show', sent.campaign_id, '--json'])).copies,
        (n) => n > 0,
        undefined,
        20,
      );
    await d1.stop('SIGKILL');
    const atKill = json(await svc([...base, 'broadcasts', 'show', sent.campaign_id, '--json']));
    assert.ok(
      atKill.copies > 0 && atKill.copies < N && atKill.fanned_out_at === null,
      `killed mid-fan-out (${atKill.copies} of ${N} copies)`,
    );

    const d2 = await serve(flags);
    t.after(() => d2.stop('SIGKILL'));
    const after = await until(
      'the fan-out finished',
      async () => json(await svc([...base, 'broadcasts', 'show', sent.campaign_id, '--json'])),
      (c) => c.fanned_out_at !== null,
      undefined,
      200,
    );
    assert.equal(after.copies, N);
    assert.equal(after.counts.queued, N);
    const key = json(await svc([...base, 'keys', 'create', '--json'])).key as string;
    const seen = new Map<string, number>();
    for (let offset = 0; offset < N + 500; offset += 500) {
      const page = (await fetch(`${d2.urls.api}/api/v2/messages?limit=500&offset=${offset}`, {
        headers: { authorization: `Bearer ${key}` },
      }).then((r) => r.json())) as { data: Array<{ to: string }>; total: number };
      for (const m of page.data) seen.set(m.to, (seen.get(m.to) ?? 0) + 1);
      if (page.data.length < 500) break;
    }
    assert.equal(seen.size, N, 'every subscriber has a copy');
    assert.deepEqual([...new Set(seen.values())], [1], 'nobody has two');
    assert.equal(await d2.stop(), 0);
  });
}

test('svc sequences and svc steps through the binary: create, list, steps in order, errors, removal', async (t) => {
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--plan', 'scale', '--json']));
  const list = json(await svc([...base, 'lists', 'create', 'News', '--json']));
  const noList = await svc([...base, 'sequences', 'create', 'Welcome']);
  assert.deepEqual([noList.code, noList.stderr.trim()], [2, 'svc: list_id is required']);
  assert.equal((await svc([...base, 'sequences', 'create', 'Welcome', '--list', 'nope'])).code, 1);
  const seq = json(await svc([...base, 'sequences', 'create', 'Welcome', '--list', list.id, '--json']));
  assert.deepEqual([seq.name, seq.list_id, seq.trigger, seq.active, seq.step_count], ['Welcome', list.id, 'subscribe', true, 0]);
  const html = join(dir, 'step.html');
  await writeFile(html, '<p>Hi {{first_name|there}}</p>');
  const later = json(
    await svc([
      ...base,
      'steps',
      'add',
      seq.id,
      '--position',
      '1',
      '--delay-hours',
      '24',
      '--subject',
      'Day one',
      '--html',
      html,
      '--json',
    ]),
  );
  json(
    await svc([...base, 'steps', 'add', seq.id, '--position', '0', '--delay-hours', '0', '--subject', 'Welcome', '--html', html, '--json']),
  );
  assert.equal(
    (await svc([...base, 'steps', 'add', seq.id, '--position', 'x', '--delay-hours', '0', '--subject', 'S', '--html', html])).code,
    2,
  );
  assert.equal(
    (await svc([...base, 'steps', 'add', seq.id, '--position', '0', '--delay-hours', '0', '--subject', 'S', '--html', html])).code,
    1,
    'position taken: a conflict',
  );
  assert.deepEqual(
    json(await svc([...base, 'steps', 'list', seq.id, '--json'])).map((s: { subject: string }) => s.subject),
    ['Welcome', 'Day one'],
  );
  assert.match(
    (await svc([...base, 'sequences', 'list'])).stdout,
    /^NAME +LIST_ID +TRIGGER +ACTIVE +STEP_COUNT +ID\nWelcome +\S+ +subscribe +true +2 /,
  );
  assert.deepEqual(json(await svc([...base, 'steps', 'remove', seq.id, later.id, '--json'])), { id: later.id, removed: true });
  assert.equal((await svc([...base, 'steps', 'remove', seq.id, later.id])).code, 1);
  assert.equal((await svc([...base, 'sequences', 'remove', seq.id])).code, 0);
  assert.deepEqual(json(await svc([...base, 'sequences', 'list', '--json'])), []);
});
