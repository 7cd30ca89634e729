// Merge variables and the unsubscribe step of list mail, on a composed copy: broadcast and sequence
// step bodies fill every variable per recipient (HTML-escaped in HTML; an empty name takes the
// fallback), API mail nothing; the subject is sent as written; List-Unsubscribe, List-Unsubscribe-Post and a copy's
// own To: and Message-ID.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { compose, TextCache } from '../../../src/send/compose/index.js';
import { fill, mergeValues } from '../../../src/send/compose/merge.js';
import { textFromHtml } from '../../../src/send/compose/text.js';
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
  const v = mergeValues('jane@rcpt.test', '  Jane  Q. <Doe> ', 'http://svc.test/u/x');
  assert.deepEqual(v, { name: 'Jane  Q. <Doe>', first_name: 'Jane', email: 'jane@rcpt.test', unsubscribe_url: 'http://svc.test/u/x' });
  assert.equal(fill('{{name}}|{{ first_name }}|{{email}}', v, true), 'Jane  Q. &#60;Doe&#62;|Jane|jane@rcpt.test');
  assert.equal(fill('{{name}}', v, false), 'Jane  Q. <Doe>');
  const nameless = mergeValues('jane@rcpt.test', '  ', 'u');
  assert.deepEqual([nameless.name, nameless.first_name], ['', '']);
  assert.equal(fill('Hi {{first_name|there}}, {{name | reader }}{{first_name}}!', nameless, true), 'Hi there, reader!');
  assert.equal(fill('{{ unknown }} {{email|x}', nameless, true), '{{ unknown }} {{email|x}', 'not a variable: left as written');
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
  // Vacation programs and filters leave list mail alone (RFC 2919, RFC 3834 §2).
  assert.equal(header('list-id'), '<l1.list.acme.test>');
  assert.equal(header('precedence'), 'bulk');
  for (const h of ['List-Id', 'Precedence', 'List-Unsubscribe', 'List-Unsubscribe-Post'])
    assert.ok(out.headers.includes(h), `${h} named for the signature`);
  assert.match(mail.html!, /Dear Jane &lt;jane@rcpt\.test&gt;/);
  assert.match(mail.html!, new RegExp(`<a href="http://svc.test/u/${TOKEN}">out</a>`));
  assert.doesNotMatch(mail.html!, /If you no longer want/);
  assert.match(mail.text!, new RegExp(`^Dear Jane <b>\\nOut: http://svc.test/u/${TOKEN}`));
});

test('merge: a sequence step fills the name variables too (as its To: shows the name); a body without the URL gets a footer', async () => {
  const c = content('sequence', '<p>Hi {{name|reader}}, {{email}}</p>');
  const named = await PostalMime.parse((await compose(c, copy('Jane Doe'), 'http://svc.test', 'k')).raw);
  assert.match(named.html!, /Hi Jane Doe, jane@rcpt\.test/);
  assert.match(named.text!, /Hi Jane Doe, jane@rcpt\.test/);
  const mail = await PostalMime.parse((await compose(c, copy(''), 'http://svc.test', 'k')).raw);
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

test('merge: a text made from HTML keeps the variables as written through every html-to-text change (headings, tables, links, wrap)', async () => {
  const html =
    '<h1>Hello {{first_name|friend}}!</h1><h2>{{ name | Dear reader }}</h2>' +
    '<table><tr><th>{{name}}</th><td>{{email}}</td></tr></table>' +
    '<p><a href="https://shop.test/?for={{email}}">{{first_name|Your}} offer</a> and <a href="{{unsubscribe_url}}">{{unsubscribe_url}}</a></p>' +
    `<p>${'w'.repeat(70)} {{first_name|caf&eacute; &amp; co}}</p>`;
  const text = textFromHtml(html);
  for (const v of [
    '{{first_name|friend}}',
    '{{ name | Dear reader }}',
    '{{name}}',
    '{{email}}',
    '{{first_name|Your}}',
    '{{unsubscribe_url}}',
  ])
    assert.ok(text.includes(v), `${v} kept as written in ${JSON.stringify(text)}`);
  assert.ok(text.includes('{{first_name|café & co}}'), 'a fallback read as HTML reads it');
  assert.match(text, /^HELLO \{\{first_name\|friend\}\}!/, 'the heading is upper-cased, its variable is not');
  const c = content('broadcast', html);
  const jane = await PostalMime.parse((await compose(c, copy('Jane Doe'), 'http://svc.test', 'k')).raw);
  assert.match(jane.text!, /^HELLO Jane!\n/);
  assert.match(jane.text!, /Dear reader|Jane Doe/);
  assert.match(jane.text!, /Jane Doe\s*jane@rcpt\.test/);
  assert.match(jane.text!, /Jane offer \[https:\/\/shop\.test\/\?for=jane@rcpt\.test\]/);
  assert.match(jane.text!, new RegExp(`http://svc\\.test/u/${TOKEN}`));
  assert.doesNotMatch(jane.text!, /\{\{|\uE000/);
  const nameless = await PostalMime.parse((await compose(c, copy(''), 'http://svc.test', 'k')).raw);
  assert.match(nameless.text!, /^HELLO friend!\n/);
  assert.match(nameless.text!, /café & co/);
});
