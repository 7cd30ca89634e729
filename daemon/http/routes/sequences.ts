// Sequences and their steps over REST (spec.md "Sequences and steps"). Reading takes read or
// newsletter (a 403 names newsletter); every other call takes newsletter.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';
import { NoBody, Sequence, SequenceStep, Unset, authErrors, invalid, notFound, open } from '../schemas.js';
import { sequenceInput, stepInput } from '../../../src/sequences/sequences.js';

const readOrNewsletter = { anyOf: ['read', 'newsletter'], named: 'newsletter' } as const;
const newsletter = { anyOf: ['newsletter'], named: 'newsletter' } as const;

type SeqParams = { Params: { id: string } };
type StepParams = { Params: { id: string; step_id: string } };

const tags = ['sequences'];
const SeqId = Type.Object({ id: Type.String({ description: 'a sequence id' }) });
const StepId = Type.Object({ id: Type.String({ description: 'a sequence id' }), step_id: Type.String({ description: 'a step id' }) });

export function sequenceRoutes(app: FastifyInstance, service: Service): void {
  const ws = (req: Parameters<typeof principalOf>[0]) => principalOf(req).workspace;
  app.get(
    '/api/v2/sequences',
    {
      config: { scope: readOrNewsletter },
      schema: {
        tags,
        summary: "The workspace's sequences",
        response: { 200: Type.Object({ data: Type.Array(Sequence) }, open), ...authErrors },
      },
    },
    async (req) => ({ data: await service.sequences.list(ws(req)) }),
  );
  app.post(
    '/api/v2/sequences',
    {
      config: { scope: newsletter, explain: { body: sequenceInput } },
      schema: {
        tags,
        summary: 'Create a sequence on a list (active at once; enrols subscribers who become active from now on)',
        body: Type.Object(
          {
            name: Type.String(),
            list_id: Type.String(),
            trigger: Unset(Type.String({ description: "'subscribe', the only trigger and the default" })),
          },
          open,
        ),
        response: { 201: Sequence, ...invalid('name is required; list_id is required; ...'), ...notFound('list'), ...authErrors },
      },
    },
    async (req, reply) => reply.code(201).send(await service.sequences.create(ws(req), req.body)),
  );
  app.delete<SeqParams>(
    '/api/v2/sequences/:id',
    {
      config: { scope: newsletter },
      schema: {
        tags,
        summary: 'Delete a sequence and its steps',
        params: SeqId,
        response: { 204: NoBody, ...notFound('sequence'), ...authErrors },
      },
    },
    async (req, reply) => {
      await service.sequences.remove(ws(req), req.params.id);
      return reply.code(204).send();
    },
  );
  app.get<SeqParams>(
    '/api/v2/sequences/:id/steps',
    {
      config: { scope: readOrNewsletter },
      schema: {
        tags,
        summary: "A sequence's steps, by position",
        params: SeqId,
        response: { 200: Type.Object({ data: Type.Array(SequenceStep) }, open), ...notFound('sequence'), ...authErrors },
      },
    },
    async (req) => ({ data: await service.sequences.steps(ws(req), req.params.id) }),
  );
  app.post<SeqParams>(
    '/api/v2/sequences/:id/steps',
    {
      config: { scope: newsletter, explain: { body: stepInput } },
      schema: {
        tags,
        summary: 'Add a step',
        params: SeqId,
        body: Type.Object(
          {
            position: Type.Integer({ minimum: 0, maximum: 10_000 }),
            delay_hours: Type.Integer({
              minimum: 0,
              maximum: 24 * 366,
              description: "from the previous step's send (from enrolment for the first)",
            }),
            subject: Type.String({ description: 'one line' }),
            body_html: Unset(Type.String({ description: 'this or body_text' })),
            body_text: Unset(Type.String()),
          },
          open,
        ),
        response: {
          201: SequenceStep,
          ...invalid('subject is required; position is required; ...'),
          ...notFound('sequence'),
          ...authErrors,
        },
      },
    },
    async (req, reply) => reply.code(201).send(await service.sequences.addStep(ws(req), req.params.id, req.body)),
  );
  app.delete<StepParams>(
    '/api/v2/sequences/:id/steps/:step_id',
    {
      config: { scope: newsletter },
      schema: { tags, summary: 'Remove a step', params: StepId, response: { 204: NoBody, ...notFound('step'), ...authErrors } },
    },
    async (req, reply) => {
      await service.sequences.removeStep(ws(req), req.params.id, req.params.step_id);
      return reply.code(204).send();
    },
  );
}
