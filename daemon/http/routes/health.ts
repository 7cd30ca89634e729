// GET /healthz, unauthenticated: 200 {"ok":true} once every listener is ready and the store answers;
// 503 with the reason otherwise, so a load balancer takes the process out of rotation.
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { toSvcError } from '../../../src/errors.js';

export function healthRoutes(app: FastifyInstance, service: Service, ready: () => boolean): void {
  app.get('/healthz', async (_req, reply) => {
    if (!ready()) return reply.code(503).send({ ok: false, error: 'starting' });
    try {
      await service.store.health();
    } catch (e) {
      return reply.code(503).send({ ok: false, error: toSvcError(e).message });
    }
    // Still serving, so 200; faults of our own (a smarthost refusing our login) are named here.
    const faults = service.faults.list();
    return faults.length ? { ok: true, faults } : { ok: true };
  });
}
