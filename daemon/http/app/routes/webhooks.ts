// The web app's webhooks page: owners and admins add an endpoint (its URL checked as
// `svc webhooks add` checks it: https, no private address unless the operator allows it; the secret
// shown once), disable, enable or remove one, read the delivery log and replay a delivery.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Service } from '../../../../src/service.js';
import { formToken } from '../../../../src/people/sign-in.js';
import { webhooksPage } from '../webhook-pages.js';
import { appSession, refusalOf, type Member } from '../session.js';

/** Deliveries the page lists, newest first. */
const SHOWN = 50;

export function appWebhookRoutes(scope: FastifyInstance, service: Service): void {
  const { page, member, memberForm } = appSession(service);
  const show = async (reply: FastifyReply, code: number, m: Member, opts: Parameters<typeof webhooksPage>[4] = {}) => {
    const [endpoints, attempts] = await Promise.all([service.webhooks.list(m.ws), service.webhooks.deliveries(m.ws, { limit: SHOWN })]);
    return page(reply, code, webhooksPage({ ws: m.ws.name, role: m.role }, formToken(m.token), endpoints, attempts, opts));
  };
  const back = (m: Member) => `/app/w/${encodeURIComponent(m.ws.name)}/webhooks`;
  /** Runs a form's action; a refusal of the service is said on the page with its status. */
  const act = async (reply: FastifyReply, m: Member, run: () => Promise<FastifyReply | void>) => {
    try {
      return (await run()) ?? reply.redirect(back(m), 303);
    } catch (e) {
      const r = refusalOf(e);
      if (!r) throw e;
      return show(reply, r.code, m, { problem: r.text });
    }
  };

  scope.get<{ Params: { ws: string } }>('/app/w/:ws/webhooks', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'manage');
    return m ? show(reply, 200, m) : reply;
  });

  scope.post<{ Params: { ws: string } }>('/app/w/:ws/webhooks', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'manage');
    if (!posted) return reply;
    const { m, form } = posted;
    const events = (form.get('events') ?? '').trim();
    return act(reply, m, async () => {
      const e = await service.webhooks.add(m.ws, (form.get('url') ?? '').trim(), events || undefined);
      return show(reply, 201, m, { created: { url: e.url, secret: e.secret } });
    });
  });

  for (const verb of ['disable', 'enable', 'remove'] as const) {
    scope.post<{ Params: { ws: string; id: string } }>(`/app/w/:ws/webhooks/:id/${verb}`, async (req, reply) => {
      const posted = await memberForm(req, reply, req.params.ws, 'manage');
      if (!posted) return reply;
      const { m } = posted;
      return act(reply, m, async () => void (await service.webhooks[verb](m.ws, req.params.id)));
    });
  }

  scope.post<{ Params: { ws: string; id: string } }>('/app/w/:ws/webhooks/deliveries/:id/replay', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'manage');
    if (!posted) return reply;
    const { m } = posted;
    return act(reply, m, async () => show(reply, 200, m, { replayed: await service.webhooks.replay(m.ws, req.params.id) }));
  });
}
