// The ceilings: GET /api/v2/me as a bare fastify route answering the same JSON, no auth, no store;
// the open pixel as a bare route answering the same GIF and headers, recording nothing; POST
// /api/v2/emails as a bare route that parses the same JSON body (fastify's own parser) and answers
// 202 with a body of the same shape, keeping nothing; and, given SVC_BENCH_PAGE (a file holding a
// page of the message log as the daemon answered it), GET /api/v2/messages answering that page
// with JSON.stringify and GET /api/v2/messages-schema answering it through the daemon's own
// response schema and serialiser options, so that the two serialisers are compared in one process;
// SVC_BENCH_RECORD does the same for one message record (/api/v2/message, /api/v2/message-schema).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { sendPixel } from '../daemon/http/pixel.js';
import { Message, MessageListItem, Page, SERIALIZER_OPTIONS } from '../daemon/http/schemas.js';

const app = Fastify({ logger: false, serializerOpts: SERIALIZER_OPTIONS });
app.get('/api/v2/me', async () => ({ tenant: 'acme', permissions: ['send', 'read'] }));
app.get('/t/o/:file', async (_req, reply) => sendPixel(reply));
app.post('/api/v2/emails', async (req, reply) => {
  const body = req.body as { to?: unknown[] };
  const id = randomUUID();
  return reply
    .code(202)
    .send({ id, status: 'queued', queued: true, tracking_url: `/api/v2/messages/${id}`, recipient_count: body.to?.length ?? 0 });
});
if (process.env.SVC_BENCH_PAGE) {
  const page = JSON.parse(readFileSync(process.env.SVC_BENCH_PAGE, 'utf8')) as unknown;
  app.get('/api/v2/messages', async () => page);
  app.get('/api/v2/messages-schema', { schema: { response: { 200: Page(MessageListItem) } } }, async () => page);
}
if (process.env.SVC_BENCH_RECORD) {
  const record = JSON.parse(readFileSync(process.env.SVC_BENCH_RECORD, 'utf8')) as unknown;
  app.get('/api/v2/message', async () => record);
  app.get('/api/v2/message-schema', { schema: { response: { 200: Message } } }, async () => record);
}
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address() as { port: number };
process.stdout.write(`svc: api listening on http://127.0.0.1:${addr.port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
