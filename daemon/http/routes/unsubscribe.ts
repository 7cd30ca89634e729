// The per-subscriber unsubscribe URL ({base_url}/u/TOKEN; CONTRACT.md "Tracking and unsubscribe"),
// on the API port without authentication. POST unsubscribes at once (RFC 8058 one-click: a mailbox
// provider posts `List-Unsubscribe=One-Click`, form-encoded or multipart, with no cookie or login;
// the page's button posts the same), and is idempotent; GET only shows the confirmation page.
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { UNSUBSCRIBE_PATH } from '../../../src/lists/lists.js';
import { PAGE_HEADERS, confirmPage, donePage, unknownPage } from '../unsubscribe-page.js';

/** What a one-click POST may carry; the body itself is not needed (the POST is the request). */
const FORM_BODY_MAX = 4096;

export function unsubscribeRoutes(app: FastifyInstance, service: Service): void {
  // Its own context: the form content types are taken here only, never by the JSON API.
  void app.register(async (scope) => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']) {
      scope.addContentTypeParser(type, { parseAs: 'string', bodyLimit: FORM_BODY_MAX }, (_req, _body, done) => done(null, null));
    }
    scope.get<{ Params: { token: string } }>(`${UNSUBSCRIBE_PATH}:token`, async (req, reply) => {
      const found = await service.lists.byToken(req.params.token);
      reply.headers(PAGE_HEADERS);
      if (!found) return reply.code(404).send(unknownPage());
      const { subscriber, list } = found;
      return subscriber.status === 'unsubscribed' ? donePage(list, subscriber.email) : confirmPage(list, subscriber.email);
    });
    scope.post<{ Params: { token: string } }>(`${UNSUBSCRIBE_PATH}:token`, async (req, reply) => {
      const done = await service.lists.unsubscribeByToken(req.params.token);
      reply.headers(PAGE_HEADERS);
      if (!done) return reply.code(404).send(unknownPage());
      return donePage(done.list, done.subscriber.email);
    });
  });
}
