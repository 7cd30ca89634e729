// The web app's API keys page: owners and admins of a workspace list, create and revoke
// its keys. A new key is shown once, in the answer to the form that made it (never cached); only
// its hash is stored. Members get 403, people of other workspaces 404 (session.ts).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Service } from '../../../../src/service.js';
import { isSvcError } from '../../../../src/errors.js';
import { SCOPES } from '../../../../src/model/key.js';
import { formToken } from '../../../../src/people/sign-in.js';
import { keysPage } from '../pages.js';
import { appSession, type Member } from '../session.js';

export function appKeyRoutes(scope: FastifyInstance, service: Service): void {
  const { page, member, memberForm } = appSession(service);
  const show = async (reply: FastifyReply, code: number, m: Member, opts: Parameters<typeof keysPage>[4] = {}) =>
    page(reply, code, keysPage(formToken(m.token), { ws: m.ws.name, role: m.role }, await service.keys.list(m.ws), SCOPES, opts));

  scope.get<{ Params: { ws: string } }>('/app/w/:ws/keys', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'manage');
    if (!m) return reply;
    return show(reply, 200, m);
  });

  scope.post<{ Params: { ws: string } }>('/app/w/:ws/keys', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'manage');
    if (!posted) return reply;
    const { m, form } = posted;
    const name = form.get('name') ?? '';
    const scopes = form.getAll('scope').join(',');
    const problem = async (text: string) => show(reply, 400, m, { problem: text });
    if (!scopes) return problem('choose at least one scope.');
    try {
      const k = await service.keys.create(m.ws, { name, scopes });
      return show(reply, 201, m, { created: { name: k.name, key: k.key } });
    } catch (e) {
      // A name that is not 1 to 100 printable characters, a scope that does not exist.
      if (isSvcError(e) && (e.kind === 'invalid_argument' || e.kind === 'usage')) return problem(`${e.message}.`);
      throw e;
    }
  });

  scope.post<{ Params: { ws: string; id: string } }>('/app/w/:ws/keys/:id/revoke', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'manage');
    if (!posted) return reply;
    const { m } = posted;
    try {
      await service.keys.revoke(m.ws, req.params.id);
    } catch (e) {
      if (!isSvcError(e) || e.kind !== 'not_found') throw e;
      return show(reply, 404, m, { problem: 'no such key in this workspace.' });
    }
    return reply.redirect(`/app/w/${encodeURIComponent(m.ws.name)}/keys`, 303);
  });
}
