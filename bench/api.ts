// Issue 33: what the routes' schemas cost or save. GET /api/v2/messages (a page of 100) from the
// daemon, next to a bare fastify route answering the same page with JSON.stringify and with the
// daemon's own response schema, the same client (autocannon, 50 connections) in the same run; and
// POST /api/v2/emails next to a bare route parsing the same body.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { load, median, report, startServer } from './lib.js';
import { acceptRate, backends, post, prepare, serveAcceptOnly } from './send.js';

const PAGE = '/api/v2/messages?limit=100';

async function rate(url: string, key?: string): Promise<number> {
  const headers = key ? { authorization: `Bearer ${key}` } : {};
  await load({ url, duration: 1, headers });
  const r = await load({ url, headers });
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

export async function api(): Promise<void> {
  const dns = await new FixtureDns().load(['sending.zone']).start();
  const st = await backends[0]!.fresh();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-api-'));
  try {
    const key = await prepare(st.store, dns);
    const daemon = await serveAcceptOnly(st.store);
    const pageFile = join(dir, 'page.json');
    const rounds: Array<{ svc: number; plain: number; schema: number }> = [];
    try {
      await load({ url: `${daemon.url}/api/v2/emails`, amount: 200, ...post(key) });
      writeFileSync(pageFile, await (await fetch(`${daemon.url}${PAGE}`, { headers: { authorization: `Bearer ${key}` } })).text());
      const bare = await startServer(['--import', 'tsx', fileURLToPath(new URL('./bare-fastify.ts', import.meta.url))], {
        SVC_BENCH_PAGE: pageFile,
      });
      try {
        // In turns, three times, each round starting with another of the three (the one measured
        // last ran slower here, whichever it was): this machine's speed moves from minute to minute.
        const runs: Array<[keyof (typeof rounds)[number], () => Promise<number>]> = [
          ['svc', () => rate(`${daemon.url}${PAGE}`, key)],
          ['plain', () => rate(`${bare.url}/api/v2/messages`)],
          ['schema', () => rate(`${bare.url}/api/v2/messages-schema`)],
        ];
        for (let i = 0; i < 3; i++) {
          const round = { svc: 0, plain: 0, schema: 0 };
          for (let j = 0; j < runs.length; j++) {
            const [name, run] = runs[(i + j) % runs.length]!;
            round[name] = await run();
          }
          rounds.push(round);
        }
      } finally {
        await bare.stop();
      }
    } finally {
      await daemon.stop();
    }
    report('GET /api/v2/messages?limit=100 (file store), requests/s', {
      svc: Math.round(median(rounds.map((r) => r.svc))),
      bare_json_stringify: Math.round(median(rounds.map((r) => r.plain))),
      bare_response_schema: Math.round(median(rounds.map((r) => r.schema))),
      svc_of_bare_schema: median(rounds.map((r) => r.svc / r.schema)).toFixed(2),
      schema_of_stringify: median(rounds.map((r) => r.schema / r.plain)).toFixed(2),
      note: 'schema_of_stringify > 1: the response schema serialises faster',
    });
    // POST /emails beside its bare route is measured by `npm run bench -- send`; here the accept
    // rate alone, with the schemas in place.
    await acceptRate(st.store, key, 'POST /api/v2/emails, file store, with schemas');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    st.cleanup();
    await dns.stop();
  }
}
