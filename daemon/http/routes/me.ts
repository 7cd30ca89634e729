// GET /api/v2/me (any valid key): the key's workspace and scopes.
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';
import { KeyInfo, authErrors } from '../schemas.js';

export function meRoutes(app: FastifyInstance, service: Service): void {
  app.get(
    '/api/v2/me',
    {
      config: { scope: 'any' },
      schema: { tags: ['keys'], summary: "The calling key's workspace and scopes", response: { 200: KeyInfo, ...authErrors } },
    },
    async (req) => service.me(principalOf(req)),
  );
}
