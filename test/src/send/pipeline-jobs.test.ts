// The send path's jobs (part 1): one job per recipient domain and at most JOB_RECIPIENTS
// recipients each; bulk sources (broadcasts, sequences) queue jobs of the bulk class, the others
// of the transactional class (no priority field), which a claim takes first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testService } from '../../helpers/service.js';
import { fixtureDns } from '../../helpers/dns-server.js';
import { publish } from '../../helpers/domains.js';
import { JOB_RECIPIENTS } from '../../../src/send/pipeline.js';
import type { SendRequest } from '../../../src/model/send.js';

test('jobs: at most 100 recipients of one domain each; bulk sources queue bulk jobs, claimed after transactional ones', async (t) => {
  const dns = await fixtureDns(t);
  const { service } = await testService(t, { config: { dnsServers: [dns.server] } });
  const ws = await service.workspaces.create('acme', 'scale');
  const d = await service.domains.add(ws, 'acme.test');
  publish(dns, 'acme.test', d.records);
  assert.ok((await service.domains.verify(ws, 'acme.test')).passed);
  await service.addresses.add(ws, 'hello@acme.test');
  const req = (to: string[]): SendRequest => ({
    from: { name: null, address: 'hello@acme.test' },
    to: to.map((address) => ({ name: null, address })),
    cc: [],
    bcc: [],
    subject: 'Hi',
    html: null,
    text: 'x',
  });
  const many = [...Array.from({ length: 250 }, (_, i) => `r${i}@big.test`), 'a@small.test', 'b@small.test'];
  await service.send(ws, req(many.slice(0, 200)), { source: 'broadcast' });
  await service.send(ws, req([...many.slice(200), 'c@small.test']), { source: 'api' });
  const jobs = await service.store.queue.claim('t', new Date().toISOString(), 60_000, 100);
  assert.equal(JOB_RECIPIENTS, 100);
  // The API send's jobs first (transactional), then the broadcast's.
  assert.deepEqual(
    jobs.map((j) => [j.domain, j.message_ids.length, j.priority ?? 0]),
    [
      ['big.test', 50, 0],
      ['small.test', 3, 0],
      ['big.test', 100, 1],
      ['big.test', 100, 1],
    ],
  );
});
