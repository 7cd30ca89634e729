// daemon/http/: the REST API (fastify): the app, auth, error mapping, one file per route group
// (routes/).
//
// Builds the REST app (DESIGN.md "Build, then listen"): serve.ts alone calls listen.
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import cors from '@fastify/cors';
import type { Service } from '../../src/service.js';
import { registerJsonBody } from './json-body.js';
import { frameworkErrors, registerErrors } from './errors.js';
import { registerAuth } from './auth.js';
import { meRoutes } from './routes/me.js';
import { healthRoutes } from './routes/health.js';
import { emailRoutes } from './routes/emails.js';
import { trackingRoutes } from './routes/tracking.js';
import { inboxRoutes } from './routes/inbox.js';
import { listRoutes } from './routes/lists.js';
import { broadcastRoutes } from './routes/broadcasts.js';
import { sequenceRoutes } from './routes/sequences.js';
import { listLinkRoutes } from './routes/list-links.js';
import { appRoutes } from './app/routes/sign-in.js';
import { openApiRoutes, registerOpenApi } from './openapi.js';
import { SERIALIZER_OPTIONS } from './schemas.js';
import { validatorCompiler } from './validation.js';
import { buildInfo } from '../../src/build-info.js';
import { HTTP_SERVER_OPTIONS } from './guard.js';

/** The web app's routes: cookies, so no CORS (spec.md "Authentication" rule 5 is the API's). */
const APP_PATH = /^\/app(\/|$)/;

export interface ApiOptions {
  /** Whether every listener of the daemon is up; /healthz answers 503 until then. */
  ready?: () => boolean;
  /** More routes in the API's context, with its CORS, body parser and auth (tests). */
  routes?: (api: FastifyInstance) => void;
  /** Sees every route as it is registered, with its schemas and config (the schema tests). */
  onRoute?: (route: RouteOptions) => void;
}

export async function buildApi(service: Service, opts: ApiOptions = {}): Promise<FastifyInstance> {
  const { config, log } = service.deps;
  const app = Fastify({
    bodyLimit: config.bodyLimit,
    logger: false,
    serializerOpts: SERIALIZER_OPTIONS,
    return503OnClosing: true,
    http: HTTP_SERVER_OPTIONS,
    // Behind a proxy of the operator's (--trusted-proxy), the client is the one X-Forwarded-For
    // names: req.ip is who the rate limits, the sign-in limit, tracking and the log see.
    ...(config.trustedProxies.length ? { trustProxy: config.trustedProxies } : {}),
    // The router's own refusals (a path parameter over 100 characters, a malformed URL) answer in
    // the API's error shape too.
    frameworkErrors,
  });
  // Every route's request schemas run (validation.ts); a refusal is answered in errors.ts.
  app.setValidatorCompiler(validatorCompiler());
  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  // spec.md "Authentication" rule 5: any website may call, without cookies. Not the web app
  // (/app/), which has cookies: there no CORS header is sent, so no other site reads it.
  const api = {
    origin: '*',
    credentials: false,
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposedHeaders: ['Retry-After', 'Idempotent-Replayed'],
    maxAge: 600,
  };
  registerErrors(app, log, service.deps.events);
  // Before any route: the document is made from the routes registered after it.
  await registerOpenApi(app, buildInfo().version);
  // The open pixel and tracked links: the busiest routes, opened by mail readers and never by
  // scripts, so a context of their own without the CORS and auth hooks (each ran on every hit).
  await app.register(async (scope) => trackingRoutes(scope, service));
  await app.register(async (scope) => {
    // The API's rule is fixed, so the plugin prepares it once; the web app's routes (and its
    // preflights and 404s, below) opt out one by one. A delegator choosing per request cost a
    // regular expression and the plugin's option set anew on every API call.
    await scope.register(cors, api);
    scope.addHook('onRoute', (route) => {
      if (APP_PATH.test(route.url)) route.config = { ...(route.config as object), cors: false } as typeof route.config;
    });
    // The rest of the app's paths (unknown pages, preflights, other methods) are routes of the app
    // too, so they opt out like its pages: each answers as an unknown path does (callNotFound runs
    // the not-found handler without the CORS hook that the route turned off).
    scope.all('/app/*', (_req, reply) => reply.callNotFound());
    scope.route({
      method: scope.supportedMethods.filter((m) => m !== 'GET' && m !== 'HEAD'),
      url: '/app',
      handler: (_req, reply) => reply.callNotFound(),
    });
    // Here, not beside the error handler: a 404 of an API path carries the CORS headers too.
    scope.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: 'not found' }));
    registerJsonBody(scope);
    registerAuth(scope, service);
    healthRoutes(scope, service, opts.ready ?? (() => true));
    openApiRoutes(scope);
    meRoutes(scope, service);
    emailRoutes(scope, service);
    inboxRoutes(scope, service);
    listRoutes(scope, service);
    broadcastRoutes(scope, service);
    sequenceRoutes(scope, service);
    listLinkRoutes(scope, service);
    appRoutes(scope, service);
    opts.routes?.(scope);
  });
  return app;
}
