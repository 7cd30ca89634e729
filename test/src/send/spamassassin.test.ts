// svc's own additions to a copy must cost nothing in SpamAssassin's stock rules: the preheader is
// hidden in a way SpamAssassin does not count as invisible text (FONT_INVIS_*), and svc's own mail
// to someone who has not consented (a double opt-in confirmation) carries no open pixel. Skipped,
// saying why, where SpamAssassin is not installed (apt-get install spamassassin).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { compose } from '../../../src/send/compose/index.js';
import type { SendContent } from '../../../src/model/message.js';

const content = (over: Partial<SendContent>): SendContent => ({
  id: 'c',
  workspace_id: 'w',
  source: 'broadcast',
  from: 'hello@acme.test',
  from_name: 'Acme',
  domain_id: 'd',
  to: [],
  cc: [],
  subject: 'June news',
  html: '<h1>Hello {{first_name|friend}}!</h1><p>Our June news: three new features and a discount for you.</p><p><a href="https://acme.test/offer">See the offer</a></p>',
  text: null,
  message_id: '2b1c0d7e-93a1-4c55-8f0e-6d3f1f7c2a10@acme.test',
  notes: [],
  created_at: '2026-11-28T10:00:00.000Z',
  ...over,
});
const copy = {
  recipients: ['jane@rcpt.test'],
  token: 'T'.repeat(43),
  list: {
    subscriber: { id: 's1', list_id: 'l1', name: 'Jane Doe', unsubscribe_token: 'U'.repeat(43) },
    record_id: '0b7d6a4e-0000-4000-8000-000000000001',
    message_id: '6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b@acme.test',
  },
};

/** The rules SpamAssassin's stock set fires on a message, local tests only (no network, no Bayes). */
function rules(raw: Buffer): string[] | null {
  const r = spawnSync('spamassassin', ['-t', '-L'], { input: raw, timeout: 60_000 });
  if (r.error || r.status === null) return null;
  return [...r.stdout.toString().matchAll(/^\s*-?\d+\.\d+ ([A-Z0-9_]+)\s/gm)].map((m) => m[1]!);
}

test('SpamAssassin: a broadcast with a preheader fires no invisible-text rule', async (t) => {
  const raw = (await compose(content({ preheader: 'Three things you will like' }), copy, 'https://svc.example.com', 'k')).raw;
  assert.match(raw.toString('latin1'), /opacity:0;overflow:hidden/, 'the preheader is hidden');
  const fired = rules(raw);
  if (fired === null) return t.skip('spamassassin is not installed (apt-get install spamassassin)');
  assert.ok(fired.includes('HTML_MESSAGE'), `SpamAssassin read it: ${fired.join(' ')}`);
  assert.deepEqual(
    fired.filter((r) => /INVIS|LOW_CONTRAST|HIDDEN/.test(r)),
    [],
    fired.join(' '),
  );
});

test('SpamAssassin: a double opt-in confirmation carries no open pixel and fires no image rule', async (t) => {
  const confirm = content({
    source: 'confirmation',
    subject: 'Confirm your subscription to News',
    html: '<p>Please confirm that you want to receive <strong>News</strong> at jane@rcpt.test:</p><p><a href="https://svc.example.com/c/x">Confirm my subscription</a></p>',
  });
  const raw = (await compose(confirm, { recipients: ['jane@rcpt.test'], token: 'T'.repeat(43) }, 'https://svc.example.com')).raw;
  assert.doesNotMatch(raw.toString('latin1'), /<img\b/);
  const fired = rules(raw);
  if (fired === null) return t.skip('spamassassin is not installed (apt-get install spamassassin)');
  assert.deepEqual(
    fired.filter((r) => /IMAGE|INVIS/.test(r)),
    [],
    fired.join(' '),
  );
});
