// The ceiling for GET /api/v2/me: a bare fastify route answering the same JSON, no auth, no store.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/api/v2/me', async () => ({ tenant: 'acme', permissions: ['send', 'read'] }));
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address() as { port: number };
process.stdout.write(`svc: api listening on http://127.0.0.1:${addr.port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
