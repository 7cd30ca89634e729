// Benchmarks, on each backend: webhook deliveries/s to a loopback receiver in another
// process (20,000 events already in the outbox, one endpoint, from the daemon's ready line; fan-out,
// signing, POST and the delivery log all counted), and the delay from a message's state change (sent_at) to its webhook
// arriving, median and p99, with mail flowing through the real pipeline to a sink.
import { randomUUID } from 'node:crypto';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { openStore } from '../src/store/open.js';
import { loadConfig, type StoreLocation } from '../src/config.js';
import { silentLog } from '../src/log.js';
import { mapLimit } from '../src/parallel.js';
import type { OutboxEvent } from '../src/model/event.js';
import type { Store } from '../src/store/types.js';
import { SVC, benchChild, load, median, percentile, report, startServer, svcSync } from './lib.js';
import { chosen, prepare, profile } from './send.js';

const INSECURE = { SVC_ALLOW_INSECURE_WEBHOOKS: '1' };

async function withStore<T>(url: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore(loadConfig({ store: url }, {}).store as StoreLocation, { role: 'admin', log: silentLog });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** n message.sent events straight into the outbox, 1,000 per store call. */
export async function fillOutbox(url: string, n: number): Promise<void> {
  await withStore(url, async (store) => {
    const ws = (await store.workspaces.getByName('bench'))!;
    const domain = (await store.domains.listByWorkspace(ws.id))[0]!;
    const at = new Date().toISOString();
    for (let done = 0; done < n; done += 1000) {
      const content_id = randomUUID();
      const events: OutboxEvent[] = Array.from({ length: 1000 }, () => {
        const id = randomUUID();
        return {
          id: randomUUID(),
          workspace_id: ws.id,
          event: 'message.sent',
          message_id: id,
          payload: { message_id: id, from: 'hello@acme.test', subject: 'Bench' },
          created_at: at,
        };
      });
      await store.messages.accept({
        content: {
          id: content_id,
          workspace_id: ws.id,
          source: 'api',
          from: 'hello@acme.test',
          from_name: null,
          domain_id: domain.id,
          to: [],
          cc: [],
          subject: 'Bench',
          html: null,
          text: 'x',
          message_id: `${content_id}@acme.test`,
          notes: [],
          created_at: at,
        },
        messages: [],
        jobs: [],
        events,
      });
    }
  });
}

export async function webhooks(): Promise<void> {
  for (const b of chosen()) {
    const dns = await new FixtureDns().load(['sending.zone']).start();
    report(b.name, {});
    try {
      // Throughput: a backlog of events, one endpoint, the daemon started on it.
      const st = await b.fresh();
      const recv = await benchChild('./webhook-receiver-process.ts');
      try {
        await prepare(st.store, dns);
        svcSync(['--store', st.store, '--workspace', 'bench', 'webhooks', 'add', `http://127.0.0.1:${recv.port}/hook`], INSECURE);
        const n = Number(process.env.SVC_BENCH_WEBHOOKS ?? 20_000);
        await fillOutbox(st.store, n);
        const daemon = await startServer(
          [...profile(), SVC, 'serve', '--store', st.store, '--api-port', '0', '--relay-port', '0', '--mx-port', '0', '--no-delivery'],
          INSECURE,
        );
        // From the daemon's ready line: the backlog's fan-out, signing, POSTs and log writes.
        const t0 = Date.now();
        try {
          while (recv.count() < n && Date.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 50));
          const seconds = (Date.now() - t0) / 1000;
          if (recv.count() < n)
            throw new Error(
              `only ${recv.count()} of ${n} webhooks arrived: ${svcSync(['--store', st.store, '--workspace', 'bench', 'webhooks', 'deliveries', '--limit', '3'])}`,
            );
          report('  webhook deliveries', {
            per_s: Math.round(n / seconds),
            events: n,
            target: '>= 2,000/s',
            note: 'from the ready line; fan-out included',
          });
        } finally {
          await daemon.stop();
        }
      } finally {
        recv.child.kill();
        st.cleanup();
      }

      // Delay: mail through the pipeline to a sink; each webhook's arrival against its sent_at.
      const lat = await b.fresh();
      const recv2 = await benchChild('./webhook-receiver-process.ts', ['--log']);
      const sink = await benchChild('./sink-process.ts');
      try {
        const key = await prepare(lat.store, dns);
        svcSync(['--store', lat.store, '--workspace', 'bench', 'webhooks', 'add', `http://127.0.0.1:${recv2.port}/hook`], INSECURE);
        const daemon = await startServer(
          [
            SVC,
            'serve',
            '--store',
            lat.store,
            '--api-port',
            '0',
            '--relay-port',
            '0',
            '--mx-port',
            '0',
            '--outbound',
            `smtp://127.0.0.1:${sink.port}`,
          ],
          INSECURE,
        );
        try {
          const m = 1000;
          const body = JSON.stringify({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'Bench', body_html: '<p>Hello</p>' });
          // A steady trickle (a few connections), not a flood: the delay, not the queue, is measured.
          await load({
            url: `${daemon.url}/api/v2/emails`,
            method: 'POST',
            amount: m,
            connections: 4,
            overallRate: 200,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body,
          });
          const t0 = Date.now();
          while (recv2.hits.length < m && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 50));
          const sentAt = await sentTimes(
            daemon.url,
            key,
            recv2.hits.map(([id]) => id),
          );
          const delays = recv2.hits.flatMap(([id, at]) => (sentAt.has(id) ? [at - sentAt.get(id)!] : []));
          report('  state change -> webhook', {
            median_ms: median(delays),
            p99_ms: percentile(delays, 99),
            max_ms: Math.max(...delays),
            webhooks: delays.length,
          });
        } finally {
          await daemon.stop();
        }
      } finally {
        recv2.child.kill();
        sink.child.kill();
        lat.cleanup();
      }
    } finally {
      await dns.stop();
    }
  }
}

/** sent_at of each message, read over the API (the daemon owns a file store). */
async function sentTimes(api: string, key: string, ids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await mapLimit(ids, 20, async (id) => {
    const r = (await (await fetch(`${api}/api/v2/messages/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      sent_at: string | null;
    };
    if (r.sent_at) out.set(id, Date.parse(r.sent_at));
  });
  return out;
}
