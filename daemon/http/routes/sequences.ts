// Sequences and their steps over REST (spec.md "Sequences and steps"). Reading takes read or
// newsletter (a 403 names newsletter); every other call takes newsletter.
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';

const readOrNewsletter = { anyOf: ['read', 'newsletter'], named: 'newsletter' } as const;
const newsletter = { anyOf: ['newsletter'], named: 'newsletter' } as const;

type SeqParams = { Params: { id: string } };
type StepParams = { Params: { id: string; step_id: string } };

export function sequenceRoutes(app: FastifyInstance, service: Service): void {
  const ws = (req: Parameters<typeof principalOf>[0]) => principalOf(req).workspace;
  app.get('/api/v2/sequences', { config: { scope: readOrNewsletter } }, async (req) => ({ data: await service.sequences.list(ws(req)) }));
  app.post('/api/v2/sequences', { config: { scope: newsletter } }, async (req, reply) =>
    reply.code(201).send(await service.sequences.create(ws(req), req.body)),
  );
  app.delete<SeqParams>('/api/v2/sequences/:id', { config: { scope: newsletter } }, async (req, reply) => {
    await service.sequences.remove(ws(req), req.params.id);
    return reply.code(204).send();
  });
  app.get<SeqParams>('/api/v2/sequences/:id/steps', { config: { scope: readOrNewsletter } }, async (req) => ({
    data: await service.sequences.steps(ws(req), req.params.id),
  }));
  app.post<SeqParams>('/api/v2/sequences/:id/steps', { config: { scope: newsletter } }, async (req, reply) =>
    reply.code(201).send(await service.sequences.addStep(ws(req), req.params.id, req.body)),
  );
  app.delete<StepParams>('/api/v2/sequences/:id/steps/:step_id', { config: { scope: newsletter } }, async (req, reply) => {
    await service.sequences.removeStep(ws(req), req.params.id, req.params.step_id);
    return reply.code(204).send();
  });
}
