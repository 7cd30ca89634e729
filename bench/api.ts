// What the routes' schemas cost or save. GET /api/v2/messages (a page of 100) and GET
// /api/v2/messages/:id (one record) from the daemon, each next to a bare fastify route answering the
// same JSON with JSON.stringify and with the daemon's own response schema and serialiser options,
// the same client (autocannon, 50 connections) in the same run; and POST /api/v2/emails (its body
// schema runs) at its accept rate.
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
    const recordFile = join(dir, 'record.json');
    const auth = { headers: { authorization: `Bearer ${key}` } };
    const results: Record<string, Array<{ svc: number; plain: number; schema: number }>> = { page: [], record: [] };
    try {
      await load({ url: `${daemon.url}/api/v2/emails`, amount: 200, ...post(key) });
      const page = await (await fetch(`${daemon.url}${PAGE}`, auth)).text();
      writeFileSync(pageFile, page);
      const one = `/api/v2/messages/${(JSON.parse(page) as { data: Array<{ id: string }> }).data[0]!.id}`;
      writeFileSync(recordFile, await (await fetch(`${daemon.url}${one}`, auth)).text());
      const bare = await startServer(['--import', 'tsx', fileURLToPath(new URL('./bare-fastify.ts', import.meta.url))], {
        SVC_BENCH_PAGE: pageFile,
        SVC_BENCH_RECORD: recordFile,
      });
      try {
        // In turns, three times, each round starting with another of the three (the one measured
        // last ran slower here, whichever it was): this machine's speed moves from minute to minute.
        const cases = {
          page: { svc: PAGE, plain: '/api/v2/messages', schema: '/api/v2/messages-schema' },
          record: { svc: one, plain: '/api/v2/message', schema: '/api/v2/message-schema' },
        };
        for (const [what, paths] of Object.entries(cases)) {
          const runs: Array<['svc' | 'plain' | 'schema', () => Promise<number>]> = [
            ['svc', () => rate(`${daemon.url}${paths.svc}`, key)],
            ['plain', () => rate(`${bare.url}${paths.plain}`)],
            ['schema', () => rate(`${bare.url}${paths.schema}`)],
          ];
          for (let i = 0; i < 3; i++) {
            const round = { svc: 0, plain: 0, schema: 0 };
            for (let j = 0; j < runs.length; j++) {
              const [name, run] = runs[(i + j) % runs.length]!;
              round[name] = await run();
            }
            results[what]!.push(round);
          }
        }
      } finally {
        await bare.stop();
      }
    } finally {
      await daemon.stop();
    }
    for (const [what, rounds] of Object.entries(results)) {
      report(`GET ${what === 'page' ? '/api/v2/messages?limit=100' : '/api/v2/messages/:id'} (file store), requests/s`, {
        svc: Math.round(median(rounds.map((r) => r.svc))),
        bare_json_stringify: Math.round(median(rounds.map((r) => r.plain))),
        bare_response_schema: Math.round(median(rounds.map((r) => r.schema))),
        svc_of_bare_schema: median(rounds.map((r) => r.svc / r.schema)).toFixed(2),
        schema_of_stringify: median(rounds.map((r) => r.schema / r.plain)).toFixed(2),
        note: 'schema_of_stringify >= 1: the response schema costs nothing over JSON.stringify',
      });
    }
    // POST /emails beside its bare route is measured by `npm run bench -- send`; here the accept
    // rate alone, with the schemas in place.
    await acceptRate(st.store, key, 'POST /api/v2/emails, file store, with schemas');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    st.cleanup();
    await dns.stop();
  }
}
