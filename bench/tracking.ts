// Issue 16: the open pixel under load (50 connections, 10,000 messages in the store; targets:
// >= 10,000 hits/s on the file store, >= 5,000/s on Postgres, p99 < 20 ms, every counted open
// recorded once: the records' open counts are compared with the hits sent), and what a burst of
// 2,000 opens/s costs concurrent sending (POST /emails accepted/s within 20 % of without).
import { randomUUID } from 'node:crypto';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { openStore } from '../src/store/open.js';
import { loadConfig, type StoreLocation } from '../src/config.js';
import { silentLog } from '../src/log.js';
import type { Message } from '../src/model/message.js';
import { fileURLToPath } from 'node:url';
import { SVC, load, report, startServer } from './lib.js';
import { acceptRate, chosen, post, prepare, profile } from './send.js';

const N = 10_000;
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

/** N sent records with tokens, an hour old (so their opens are past the prefetch window). */
async function seed(storeUrl: string): Promise<string[]> {
  const loc = loadConfig({ store: storeUrl }, {}).store as StoreLocation;
  const store = await openStore(loc, { role: 'admin', log: silentLog });
  try {
    const ws = (await store.workspaces.getByName('bench'))!;
    const domain = (await store.domains.listByWorkspace(ws.id))[0]!;
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const tokens: string[] = [];
    for (let done = 0; done < N; done += 1000) {
      const content_id = randomUUID();
      const messages: Message[] = Array.from({ length: 1000 }, (_, i) => {
        const token = randomUUID().replace(/-/g, '');
        tokens.push(token);
        return {
          id: randomUUID(), workspace_id: ws.id, content_id, source: 'api', from: 'hello@acme.test', to: `r${done + i}@rcpt.test`, kind: 'bcc', subject: 'bench',
          status: 'sent', open_count: 0, click_count: 0, reply_count: 0, first_open_after_seconds: null, message_id: `${content_id}@acme.test`, error: null, notes: [],
          created_at: at, sent_at: at, opened_at: null, clicked_at: null, replied_at: null, bounced_at: null, token,
        };
      });
      await store.messages.accept({
        content: { id: content_id, workspace_id: ws.id, source: 'api', from: 'hello@acme.test', from_name: null, domain_id: domain.id, to: [], cc: [], subject: 'bench', html: '<p>x</p>', text: null, message_id: `${content_id}@acme.test`, notes: [], created_at: at },
        messages,
        jobs: [],
        events: [],
      });
    }
    return tokens;
  } finally {
    await store.close();
  }
}

async function openCounts(storeUrl: string): Promise<number> {
  const loc = loadConfig({ store: storeUrl }, {}).store as StoreLocation;
  const store = await openStore(loc, { role: 'admin', log: silentLog });
  try {
    const ws = (await store.workspaces.getByName('bench'))!;
    let total = 0;
    for (let offset = 0; ; offset += 500) {
      const page = await store.messages.list(ws.id, { limit: 500, offset });
      total += page.data.reduce((n, m) => n + m.open_count, 0);
      if (page.data.length < 500) return total;
    }
  } finally {
    await store.close();
  }
}

/** A pixel load over the seeded tokens, round robin. */
const pixelLoad = (url: string, tokens: string[], extra: Record<string, unknown> = {}) => {
  let i = 0;
  return load({
    url,
    headers: { 'user-agent': BROWSER },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/t/o/${tokens[i++ % tokens.length]}.gif` }) }],
    ...extra,
  });
};

/** The same client against a bare fastify route answering the same pixel: what the client and the machine allow. */
async function barePixel(tokens: string[]): Promise<number> {
  const server = await startServer(['--import', 'tsx', fileURLToPath(new URL('./bare-fastify.ts', import.meta.url))]);
  try {
    const r = await pixelLoad(server.url, tokens);
    report('bare fastify, same pixel', { hits_per_s: Math.round(r.requests.average), p99_ms: r.latency.p99, connections: 50 });
    return r.requests.average;
  } finally {
    await server.stop();
  }
}

export async function tracking(): Promise<void> {
  let bare: number | null = null;
  for (const b of chosen()) {
    const dns = await new FixtureDns().load(['sending.zone']).start();
    const st = await b.fresh();
    try {
      const key = await prepare(st.store, dns);
      const tokens = await seed(st.store);
      report(b.name, { messages: N });
      bare ??= await barePixel(tokens);
      const daemon = await startServer([...profile(), SVC, 'serve', '--store', st.store, '--api-port', '0', '--relay-port', '0', '--mx-port', '0', '--no-delivery']);
      let sent = 0;
      try {
        const r = await pixelLoad(daemon.url, tokens);
        // Every request sent is answered and recorded, those still in flight when the clock ran out too.
        sent = r.requests.sent;
        report('  pixel, 50 connections', { hits_per_s: Math.round(r.requests.average), p99_ms: r.latency.p99, errors: r.errors + r.non2xx, of_bare: r.requests.average / bare, target: b.name.startsWith('file') ? '>= 10,000/s' : '>= 5,000/s; p99 < 20 ms' });
      } finally {
        // A stop writes what is held: then the counts are final.
        await daemon.stop();
      }
      const counted = await openCounts(st.store);
      report('  opens recorded vs pixel requests sent', { recorded: counted, sent, once_each: counted === sent ? 'yes' : 'NO' });

      // Sending alone, then with 2,000 opens/s beside it.
      const alone = await acceptRate(st.store, key, 'sending alone');
      const both = await startServer([SVC, 'serve', '--store', st.store, '--api-port', '0', '--relay-port', '0', '--mx-port', '0', '--no-delivery']);
      try {
        const url = `${both.url}/api/v2/emails`;
        await load({ url, duration: 1, ...post(key) });
        const [sending, opens] = await Promise.all([load({ url, ...post(key) }), pixelLoad(both.url, tokens, { connections: 10, overallRate: 2000 })]);
        report('  accept during 2,000 opens/s', {
          accepted_per_s: Math.round(sending.requests.average),
          opens_per_s: Math.round(opens.requests.average),
          ratio: sending.requests.average / alone,
          target: '>= 0.8',
        });
      } finally {
        await both.stop();
      }
    } finally {
      st.cleanup();
      await dns.stop();
    }
  }
}
