// The ceilings: GET /api/v2/me as a bare fastify route answering the same JSON, no auth, no store;
// the open pixel as a bare route answering the same GIF and headers, recording nothing.
import Fastify from 'fastify';
import { sendPixel } from '../daemon/http/pixel.js';

const app = Fastify({ logger: false });
app.get('/api/v2/me', async () => ({ tenant: 'acme', permissions: ['send', 'read'] }));
app.get('/t/o/:file', async (_req, reply) => sendPixel(reply));
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address() as { port: number };
process.stdout.write(`svc: api listening on http://127.0.0.1:${addr.port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
