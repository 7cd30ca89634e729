// The links of list mail, on the API port without authentication. The per-subscriber unsubscribe
// URL ({base_url}/u/TOKEN; CONTRACT.md "Tracking and unsubscribe"): POST unsubscribes at once (RFC
// 8058 one-click: a mailbox provider posts `List-Unsubscribe=One-Click`, form-encoded or multipart,
// with no cookie or login; the page's button posts the same), and is idempotent; GET only shows the
// question. Double opt-in's confirmation link ({base_url}/c/CODE): the same pattern, 410 once expired.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Service } from '../../../src/service.js';
import { UNSUBSCRIBE_PATH } from '../../../src/lists/lists.js';
import { CONFIRM_PATH } from '../../../src/lists/confirm.js';
import {
  PAGE_HEADERS,
  cancelledPage,
  confirmPage,
  confirmSubscriptionPage,
  confirmedPage,
  donePage,
  expiredPage,
  unknownPage,
} from '../list-pages.js';

/** What a one-click POST may carry; the body itself is not needed (the POST is the request). */
const FORM_BODY_MAX = 4096;

export function listLinkRoutes(app: FastifyInstance, service: Service): void {
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

    const confirmed = (found: Awaited<ReturnType<Service['lists']['confirmation']>>, reply: FastifyReply, ask: boolean) => {
      reply.headers(PAGE_HEADERS);
      if (found === null) return reply.code(404).send(unknownPage());
      if (found === 'expired') return reply.code(410).send(expiredPage());
      const { subscriber, list } = found;
      if (subscriber.status === 'unsubscribed') return cancelledPage(list, subscriber.email);
      return ask && subscriber.status === 'pending'
        ? confirmSubscriptionPage(list, subscriber.email)
        : confirmedPage(list, subscriber.email);
    };
    scope.get<{ Params: { code: string } }>(`${CONFIRM_PATH}:code`, async (req, reply) =>
      confirmed(await service.lists.confirmation(req.params.code), reply, true),
    );
    scope.post<{ Params: { code: string } }>(`${CONFIRM_PATH}:code`, async (req, reply) =>
      confirmed(await service.lists.confirm(req.params.code), reply, false),
    );
  });
}
