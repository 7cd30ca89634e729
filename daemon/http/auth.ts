// Authentication and scope checks for /api/v2 routes (spec.md "Authentication"). A route declares
// its rule in config.scope; the check runs before the body is read.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../src/auth/authenticate.js';
import { bearerToken } from '../../src/auth/authenticate.js';
import { requireScope, type ScopeRule } from '../../src/auth/scopes.js';
import type { Service } from '../../src/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** 'any': any valid key (GET /me); otherwise the scopes the endpoint accepts. */
    scope?: ScopeRule | 'any';
  }
}

export function registerAuth(app: FastifyInstance, service: Service): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (req) => {
    const rule = req.routeOptions.config.scope;
    if (rule === undefined) return;
    const principal = await service.authenticate(bearerToken(req.headers.authorization));
    // Every request of a valid key counts against its rate limit, a refused scope included.
    await service.rateLimit(principal);
    if (rule !== 'any') requireScope(principal.scopes, rule);
    req.principal = principal;
  });
}

/** The authenticated caller of a route that declared a scope. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new Error(`route ${req.routeOptions.url} has no scope rule`);
  return req.principal;
}
