// Who caused an open or a click: each label from its request pattern, with the shipped list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, SOURCE_LIST } from '../../../src/tracking/classify.js';
import { compose } from '../../../src/send/compose/index.js';
import { linkTarget, trackedLink } from '../../../src/mail/tracked-link.js';
import type { SendContent } from '../../../src/model/message.js';
import PostalMime from 'postal-mime';

const sent = '2026-03-01T12:00:00.000Z';
const at = (s: number) => new Date(Date.parse(sent) + s * 1000).toISOString();
const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36';

test('labels: prefetch window, scanners by agent, address, timing and bursts, Apple MPP, image proxies, people', () => {
  const c = (kind: 'open' | 'click', s: number, ip: string | null, ua: string | null, burst = 0) =>
    classify({ kind, ip, user_agent: ua, at: at(s) }, sent, 5, burst).source;
  assert.equal(c('open', 2, '198.51.100.7', browser), 'prefetch');
  assert.equal(c('open', 60, '198.51.100.7', browser), 'human');
  assert.equal(c('open', 60, '66.249.84.10', 'Mozilla/5.0 (via ggpht.com GoogleImageProxy)'), 'proxy');
  assert.equal(c('open', 60, '17.58.1.2', 'Mozilla/5.0'), 'prefetch');
  assert.equal(c('open', 60, '2001:db8::1', 'Mozilla/5.0'), 'human');
  assert.equal(c('click', 60, '104.47.12.3', browser), 'scanner');
  assert.equal(c('click', 60, '198.51.100.7', 'curl/8.4.0'), 'scanner');
  assert.equal(c('click', 3, '198.51.100.7', browser), 'scanner');
  assert.equal(c('click', 60, '198.51.100.7', browser, 2), 'scanner');
  assert.equal(c('click', 60, '198.51.100.7', browser), 'human');
  assert.equal(classify({ kind: 'open', ip: null, user_agent: null, at: at(1) }, null, 5, 0).source, 'prefetch');
  assert.match(
    classify({ kind: 'click', ip: '198.51.100.7', user_agent: browser, at: at(60) }, sent, 5, 3).reason,
    /4 links of one copy in the same second/,
  );
  // The reason names the group and how it was known (agents in any case); asked again (remembered), the same.
  for (let i = 0; i < 2; i++) {
    assert.match(
      classify({ kind: 'click', ip: '198.51.100.7', user_agent: 'CURL/8.4.0', at: at(60) }, sent, 5, 0).reason,
      /^\S.* \(agent\)$/,
    );
    assert.match(
      classify({ kind: 'open', ip: '17.58.1.2', user_agent: 'Mozilla/5.0', at: at(60) }, sent, 5, 0).reason,
      /^\S.* \(address\)$/,
    );
    assert.equal(c('open', 60, '2001:db8::1', 'Mozilla/5.0'), 'human');
    assert.equal(c('open', 60, 'not an address', 'Mozilla/5.0'), 'human');
  }
  assert.match(SOURCE_LIST.updated, /^\d{4}-\d{2}-\d{2}$/);
});

test('the links step: broadcast links signed per recipient, API and relay links left alone, text keeps the real links', async () => {
  const content = (source: SendContent['source']): SendContent => ({
    id: 'c',
    workspace_id: 'w',
    source,
    from: 'hello@acme.test',
    from_name: null,
    domain_id: 'd',
    to: [{ name: null, address: 'jane@rcpt.test' }],
    cc: [],
    subject: 'News',
    html: '<p><a href="https://example.com/a?x=1&amp;y=2">A</a> <a href=\'mailto:x@y.z\'>M</a> <a href="//evil.example">E</a></p>',
    text: null,
    message_id: 'm@acme.test',
    notes: [],
    created_at: sent,
  });
  const copy = { recipients: ['jane@rcpt.test'], token: 'T'.repeat(24) };
  const out = await PostalMime.parse((await compose(content('broadcast'), copy, 'https://t.example', 'key')).raw);
  const hrefs = [...out.html!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
  assert.equal(hrefs[0], trackedLink('https://t.example', 'key', copy.token, 'https://example.com/a?x=1&y=2'));
  const u = new URL(hrefs[0]!);
  const [, , , token, sig] = u.pathname.split('/');
  assert.equal(linkTarget('key', token!, sig!, u.searchParams.get('u')!), 'https://example.com/a?x=1&y=2');
  assert.ok(out.html!.includes("href='mailto:x@y.z'") && out.html!.includes('href="//evil.example"'), 'others untouched');
  assert.match(out.text!, /https:\/\/example\.com\/a\?x=1&y=2/);
  for (const source of ['api', 'relay'] as const) {
    const plain = await PostalMime.parse((await compose(content(source), copy, 'https://t.example', 'key')).raw);
    assert.ok(!plain.html!.includes('/t/c/'), source);
  }
});
