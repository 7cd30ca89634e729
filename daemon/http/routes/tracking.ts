// The open pixel and tracked links (CONTRACT.md "Tracking and unsubscribe"), on the API port
// without authentication. The pixel is the same image with the same headers for every token,
// known, forged or expired (nothing to learn from it), never cached, and never waits for the store:
// the open is recorded after the answer (src/tracking/recorder.ts). HEAD records nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SvcError } from '../../../src/errors.js';
import type { Service } from '../../../src/service.js';

import { NEVER_CACHED, PIXEL_PATH, sendPixel } from '../pixel.js';

const TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

const agent = (req: FastifyRequest) => (req.headers['user-agent'] ?? '').slice(0, 500) || null;

export function trackingRoutes(app: FastifyInstance, service: Service): void {
  app.get<{ Params: { file: string } }>(`${PIXEL_PATH}:file`, async (req, reply) => {
    sendPixel(reply);
    const token = req.params.file.endsWith('.gif') ? req.params.file.slice(0, -4) : '';
    if (req.method === 'GET' && TOKEN.test(token))
      service.tracking.hit({ kind: 'open', token, url: null, ip: req.ip || null, user_agent: agent(req) });
    return reply;
  });

  app.get<{ Params: { token: string; sig: string }; Querystring: { u?: string } }>('/t/c/:token/:sig', async (req, reply) => {
    const url = TOKEN.test(req.params.token)
      ? await service.tracking.target(req.params.token, req.params.sig, typeof req.query.u === 'string' ? req.query.u : undefined)
      : null;
    if (!url) throw new SvcError('not_found', 'link not found');
    reply.headers(NEVER_CACHED).redirect(url, 302);
    if (req.method === 'GET')
      service.tracking.hit({ kind: 'click', token: req.params.token, url, ip: req.ip || null, user_agent: agent(req) });
    return reply;
  });
}
