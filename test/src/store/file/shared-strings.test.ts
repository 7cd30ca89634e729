import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeaderIndex } from '../../../../src/store/file/header-index.js';
import { Interner, shareRecordStrings } from '../../../../src/store/file/shared-strings.js';
import type { Message } from '../../../../src/model/message.js';

const record = (id: string, ws: string, mid: string): Message => ({ id, workspace_id: ws, message_id: mid }) as Message;

test('header index: one record or many per header, kept apart per workspace, forgotten together', () => {
  const ix = new HeaderIndex();
  const a = record('a', 'w1', '<x@acme.test>');
  const b = record('b', 'w1', '<x@acme.test>');
  const c = record('c', 'w2', '<x@acme.test>');
  ix.add(a);
  assert.deepEqual(ix.get('w1', '<x@acme.test>'), [a]);
  ix.add(b);
  ix.add(c);
  assert.deepEqual(ix.get('w1', '<x@acme.test>'), [a, b]);
  assert.deepEqual(ix.get('w2', '<x@acme.test>'), [c]);
  assert.deepEqual(ix.get('w1', '<y@acme.test>'), []);
  ix.delete('w1', '<x@acme.test>');
  assert.deepEqual(ix.get('w1', '<x@acme.test>'), []);
  assert.deepEqual(ix.get('w2', '<x@acme.test>'), [c]);
});

test("shared strings: equal values of a send's records become one string; different ones are kept", () => {
  // Built at run time so that each is a string of its own, as JSON.parse gives them.
  const fresh = (s: string) => [...s].join('');
  const content = { id: fresh('content-1'), workspace_id: fresh('ws-1'), from: fresh('hello@acme.test'), subject: fresh('June news') };
  const m = (to: string, campaign: string) =>
    ({
      id: to,
      workspace_id: fresh('ws-1'),
      content_id: fresh('content-1'),
      from: fresh('hello@acme.test'),
      subject: fresh('June news'),
      source: fresh('broadcast'),
      kind: fresh('to'),
      status: fresh('queued'),
      created_at: fresh('2026-11-25T00:00:00.000Z'),
      campaign_id: fresh(campaign),
      to,
    }) as Message;
  const records = [m('a@x.test', 'c1'), m('b@x.test', 'c1'), m('c@x.test', 'c2')];
  shareRecordStrings(content, records);
  for (const r of records) {
    assert.equal(r.workspace_id, 'ws-1');
    assert.equal(r.subject, 'June news');
  }
  assert.equal(records[2]!.campaign_id, 'c2', 'a value that differs is its own');
  assert.equal(records[1]!.campaign_id, 'c1');
});

test('interner: equal keys give the first value; past its bound it starts afresh', () => {
  const i = new Interner<{ n: number }>(2);
  const one = { n: 1 };
  assert.equal(i.get('a', one), one);
  assert.equal(i.get('a', { n: 2 }), one);
  i.get('b', { n: 3 });
  const fresh = { n: 4 };
  assert.equal(i.get('c', fresh), fresh, 'a third key clears the table');
  const again = { n: 5 };
  assert.equal(i.get('a', again), again, 'forgotten after the clear');
});
