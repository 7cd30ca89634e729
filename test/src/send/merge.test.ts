// Merge variables and the unsubscribe step of list mail (issue 29), on a composed copy: broadcast
// bodies fill every variable per recipient (HTML-escaped in HTML), sequence step bodies only
// {{email}} and {{unsubscribe_url}} (their names are always empty: the fallback applies), API mail
// nothing; the subject is sent as written; List-Unsubscribe, List-Unsubscribe-Post and a copy's
// own To: and Message-ID.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { compose, TextCache } from '../../../src/send/compose/index.js';
import { fill, mergeValues } from '../../../src/send/compose/merge.js';
import type { MessageSource, SendContent } from '../../../src/model/message.js';

const TOKEN = 'T'.repeat(43);
const content = (source: MessageSource, html: string, text: string | null = null): SendContent => ({
  id: 'c',
  workspace_id: 'w',
  source,
  from: 'hello@acme.test',
  from_name: 'Acme',
  domain_id: 'd',
  to: [],
  cc: [],
  subject: 'Hi {{name}}',
  html,
  text,
  message_id: 'shared@acme.test',
  notes: [],
  created_at: '2026-11-22T10:00:00.000Z',
});
const copy = (name: string) => ({
  recipients: ['jane@rcpt.test'],
  token: 'tok',
  list: {
    subscriber: { id: 's1', list_id: 'l1', name, unsubscribe_token: TOKEN },
    record_id: '0b7d6a4e-0000-4000-8000-000000000001',
    message_id: 'own@acme.test',
  },
});

test('merge: values per source, fallbacks, escaping, unknown names kept', () => {
  const v = mergeValues('broadcast', 'jane@rcpt.test', '  Jane  Q. <Doe> ', 'http://svc.test/u/x');
  assert.deepEqual(v, { name: 'Jane  Q. <Doe>', first_name: 'Jane', email: 'jane@rcpt.test', unsubscribe_url: 'http://svc.test/u/x' });
  assert.equal(fill('{{name}}|{{ first_name }}|{{email}}', v, true), 'Jane  Q. &#60;Doe&#62;|Jane|jane@rcpt.test');
  assert.equal(fill('{{name}}', v, false), 'Jane  Q. <Doe>');
  const seq = mergeValues('sequence', 'jane@rcpt.test', 'Jane', 'u');
  assert.deepEqual([seq.name, seq.first_name], ['', ''], 'sequence steps never fill names');
  assert.equal(fill('Hi {{first_name|there}}, {{name | reader }}{{first_name}}!', seq, true), 'Hi there, reader!');
  assert.equal(fill('{{ unknown }} {{email|x}', seq, true), '{{ unknown }} {{email|x}', 'not a variable: left as written');
});

test('merge: a broadcast copy is filled for its recipient, with its own To:, Message-ID and unsubscribe headers', async () => {
  const c = content(
    'broadcast',
    '<p>Dear {{first_name|friend}} &lt;{{email}}&gt;</p><a href="{{unsubscribe_url}}">out</a>',
    'Dear {{name|friend}}\nOut: {{unsubscribe_url}}',
  );
  const out = await compose(c, copy('Jane <b>'), 'http://svc.test', 'k');
  const mail = await PostalMime.parse(out.raw);
  assert.equal(mail.subject, 'Hi {{name}}', 'the subject as written');
  assert.equal(mail.messageId, '<own@acme.test>');
  assert.deepEqual(mail.to, [{ name: 'Jane <b>', address: 'jane@rcpt.test' }]);
  const header = (n: string) => mail.headers.find((h) => h.key === n)?.value;
  assert.equal(
    header('list-unsubscribe'),
    `<http://svc.test/u/${TOKEN}>, <mailto:bounces+0b7d6a4e000040008000000000000001@acme.test?subject=unsubscribe>`,
  );
  assert.equal(header('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
  assert.ok(out.headers.includes('List-Unsubscribe') && out.headers.includes('List-Unsubscribe-Post'), 'named for the signature');
  assert.match(mail.html!, /Dear Jane &lt;jane@rcpt\.test&gt;/);
  assert.match(mail.html!, new RegExp(`<a href="http://svc.test/u/${TOKEN}">out</a>`));
  assert.doesNotMatch(mail.html!, /If you no longer want/);
  assert.match(mail.text!, new RegExp(`^Dear Jane <b>\\nOut: http://svc.test/u/${TOKEN}`));
});

test('merge: a sequence step fills only email and the unsubscribe URL; a body without the URL gets a footer', async () => {
  const c = content('sequence', '<p>Hi {{name|reader}}, {{email}}</p>');
  const mail = await PostalMime.parse((await compose(c, copy('Jane'), 'http://svc.test', 'k')).raw);
  assert.match(mail.html!, /Hi reader, jane@rcpt\.test/);
  assert.match(mail.html!, new RegExp(`If you no longer want these emails, <a href="http://svc.test/u/${TOKEN}">unsubscribe</a>`));
  assert.match(mail.text!, /Hi reader, jane@rcpt\.test/);
  assert.match(mail.text!, new RegExp(`Unsubscribe: http://svc.test/u/${TOKEN}\\n+$`));
});

test('merge: API mail is never filled and has no list headers', async () => {
  const c = { ...content('api', '<p>{{name}}</p>'), to: [{ name: null, address: 'jane@rcpt.test' }] };
  const out = await compose(c, { recipients: ['jane@rcpt.test'], token: 'tok' }, 'http://svc.test');
  const mail = await PostalMime.parse(out.raw);
  assert.match(mail.html!, /\{\{name\}\}/);
  assert.equal(
    mail.headers.find((h) => h.key === 'list-unsubscribe'),
    undefined,
  );
  assert.equal(mail.messageId, '<shared@acme.test>');
});

test("a broadcast's text is made from its HTML once, not once per subscriber; each copy's text has its own values", async () => {
  const c = content('broadcast', '<p>Dear {{first_name|friend}} &lt;{{email}}&gt;</p><p><a href="{{unsubscribe_url}}">out</a></p>');
  const texts = new TextCache();
  const jane = await PostalMime.parse((await compose(c, copy('Jane Doe'), 'http://svc.test', 'k', texts)).raw);
  const bob = await PostalMime.parse(
    (await compose(c, { ...copy('Bob'), recipients: ['bob@rcpt.test'] }, 'http://svc.test', 'k', texts)).raw,
  );
  assert.equal(texts.made, 1, 'one conversion for both copies');
  assert.match(jane.text!, /Dear Jane <jane@rcpt\.test>/);
  assert.match(bob.text!, /Dear Bob <bob@rcpt\.test>/);
  // The link in the text is the copy's own unsubscribe URL, as in its HTML.
  assert.match(jane.text!, new RegExp(`out \\[http://svc\\.test/u/${TOKEN}\\]`));
  // Another content is converted again.
  await compose({ ...c, id: 'c2' }, copy('Jane'), 'http://svc.test', 'k', texts);
  assert.equal(texts.made, 2);
});
