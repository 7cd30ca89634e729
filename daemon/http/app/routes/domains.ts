// The web app's domains page: owners and admins add a domain (the plan's limit: 402),
// see its records to publish with their statuses, and check them now (real DNS queries, as
// `svc domains verify`).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Service } from '../../../../src/service.js';
import { formToken } from '../../../../src/people/sign-in.js';
import { domainsPage } from '../domain-pages.js';
import { appSession, refusalOf, type Member } from '../session.js';

export function appDomainRoutes(scope: FastifyInstance, service: Service): void {
  const { page, member, memberForm } = appSession(service);
  const show = async (reply: FastifyReply, code: number, m: Member, opts: Parameters<typeof domainsPage>[3] = {}) =>
    page(reply, code, domainsPage({ ws: m.ws.name, role: m.role }, formToken(m.token), await service.domains.list(m.ws), opts));

  scope.get<{ Params: { ws: string } }>('/app/w/:ws/domains', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'manage');
    return m ? show(reply, 200, m) : reply;
  });

  scope.post<{ Params: { ws: string } }>('/app/w/:ws/domains', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'manage');
    if (!posted) return reply;
    const { m, form } = posted;
    try {
      await service.domains.add(m.ws, (form.get('domain') ?? '').trim().toLowerCase());
    } catch (e) {
      const r = refusalOf(e);
      if (!r) throw e;
      return show(reply, r.code, m, { problem: r.text });
    }
    return reply.redirect(`/app/w/${encodeURIComponent(m.ws.name)}/domains`, 303);
  });

  scope.post<{ Params: { ws: string; domain: string } }>('/app/w/:ws/domains/:domain/check', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'manage');
    if (!posted) return reply;
    const { m } = posted;
    try {
      const v = await service.domains.verify(m.ws, req.params.domain);
      return show(reply, 200, m, { checked: { domain: v.view.domain, passed: v.passed } });
    } catch (e) {
      const r = refusalOf(e);
      if (!r) throw e;
      return show(reply, r.code, m, { problem: r.text });
    }
  });
}
