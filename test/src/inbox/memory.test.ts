// What the file store keeps in memory per received item must not grow with the message's header
// block: a subject or sender cut from it (a view in V8) would keep the whole block alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { testService } from '../../helpers/service.js';
import { fixtureDns } from '../../helpers/dns-server.js';
import { publish } from '../../helpers/domains.js';
import { inboundService } from '../../../src/inbox/receive.js';

test('received items kept in memory hold their own strings, not the 32 KB header block they were read from', async (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const dns = await fixtureDns(t);
  const { service } = await testService(t, { config: { dnsServers: [dns.server] } });
  const { store } = service.deps;
  const ws = await service.workspaces.create('acme', 'scale');
  const d = await service.domains.add(ws, 'acme.test');
  publish(dns, 'acme.test', d.records);
  assert.ok((await service.domains.verify(ws, 'acme.test')).passed);
  await service.addresses.add(ws, 'hello@acme.test');
  const inbound = inboundService(service.deps);
  const r = await inbound.recipient('hello@acme.test');
  const filler = `X-Filler: ${'y'.repeat(32_000)}`;
  const message = (i: number) =>
    Buffer.from(
      `From: Someone Somewhere <someone.somewhere@elsewhere.test>\r\nTo: <hello@acme.test>\r\nCc: A Colleague <a.colleague@elsewhere.test>\r\nSubject: A question about order number ${i}\r\nMessage-ID: <message-number-${i}@elsewhere.test>\r\nIn-Reply-To: <an-earlier-message-${i}@elsewhere.test>\r\nReferences: <an-earlier-message-${i}@elsewhere.test>\r\n${filler}\r\n\r\nbody\r\n`,
    );
  const N = 400;
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++)
    await inbound.receive({ mailFrom: 'someone@elsewhere.test', recipients: [r], remoteIp: '127.0.0.1' }, message(i));
  gc();
  gc();
  const perItem = (process.memoryUsage().heapUsed - before) / N;
  // About 1 KB each with strings of their own; 33 KB when each kept its header block.
  assert.ok(perItem < 8_000, `${Math.round(perItem)} bytes of heap per received item`);
  const listed = await store.inbox.list(ws.id, { folder: 'inbox', limit: 1, offset: 0 });
  assert.equal(listed.total, N);
  assert.equal(listed.data[0]!.subject, `A question about order number ${N - 1}`);
  assert.equal(listed.data[0]!.from, 'someone.somewhere@elsewhere.test');
});
