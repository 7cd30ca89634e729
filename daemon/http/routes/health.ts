// GET /healthz, unauthenticated: 200 {"ok":true} once every listener is ready and the store answers;
// 503 with the reason otherwise, so a load balancer takes the process out of rotation.
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { toSvcError } from '../../../src/errors.js';
import { Type } from 'typebox';

const Health = Type.Object(
  {
    ok: Type.Boolean(),
    error: Type.Optional(Type.String()),
    faults: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { additionalProperties: true },
);

export function healthRoutes(app: FastifyInstance, service: Service, ready: () => boolean): void {
  const schema = {
    tags: ['health'],
    summary: 'svc addition: 200 once every listener is up and the store answers, 503 with the reason otherwise',
    security: [],
    response: { 200: Health, 503: Health },
  };
  app.get('/healthz', { schema }, async (_req, reply) => {
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
