// The web app's people page: owners and admins add a person (a seat of the plan; their
// one-time sign-in link is shown once, until invitations are mailed), change a role, remove one.
// Only an owner gives or takes the owner role (src/people); the last owner stays (the store refuses it).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Service } from '../../../../src/service.js';
import { SvcError } from '../../../../src/errors.js';
import { ROLES, type Role } from '../../../../src/model/person.js';
import type { Workspace } from '../../../../src/model/workspace.js';
import { formToken } from '../../../../src/people/sign-in.js';
import { limitFor } from '../../../../src/workspaces/quota.js';
import { peoplePage } from '../pages.js';
import { appSession, refusalOf, type Member } from '../session.js';

export function appPeopleRoutes(scope: FastifyInstance, service: Service): void {
  const { page, member, memberForm } = appSession(service);

  const show = async (
    reply: FastifyReply,
    code: number,
    m: Member,
    opts: { added?: { email: string; url: string | null; mailed: boolean }; problem?: string } = {},
  ) => {
    const people = await service.people.list(m.ws);
    return page(
      reply,
      code,
      peoplePage(
        formToken(m.token),
        { ws: m.ws.name, role: m.role },
        people,
        { used: people.length, limit: limitFor(m.ws, 'seats') },
        { ...opts, roles: ROLES },
      ),
    );
  };

  scope.get<{ Params: { ws: string } }>('/app/w/:ws/people', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'manage');
    return m ? show(reply, 200, m) : reply;
  });

  scope.post<{ Params: { ws: string } }>('/app/w/:ws/people', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'manage');
    if (!posted) return reply;
    const { m, form } = posted;
    try {
      const role = form.get('role') ?? 'member';
      const name = form.get('name')?.trim();
      const by = m.who.account.name ?? m.who.account.email;
      const u = await service.people.create(
        m.ws,
        { email: form.get('email') ?? '', role, ...(name ? { name } : {}) },
        { via: 'app', by, as: m.role },
      );
      return show(reply, 201, m, { added: { email: u.email, url: u.sign_in_url, mailed: u.mailed } });
    } catch (e) {
      const s = refusalOf(e);
      if (!s) throw e;
      return show(reply, s.code, m, { problem: s.text });
    }
  });

  const change = (
    path: string,
    act: (m: { ws: Workspace; role: Role }, target: { email: string; role: Role }, form: URLSearchParams) => Promise<unknown>,
  ) =>
    scope.post<{ Params: { ws: string; id: string } }>(path, async (req, reply) => {
      const posted = await memberForm(req, reply, req.params.ws, 'manage');
      if (!posted) return reply;
      const { m, form } = posted;
      try {
        const target = (await service.people.list(m.ws)).find((p) => p.id === req.params.id);
        if (!target) throw new SvcError('not_found', 'no such person in this workspace');
        await act(m, target, form);
      } catch (e) {
        const s = refusalOf(e);
        if (!s) throw e;
        return show(reply, s.code, m, { problem: s.text });
      }
      return reply.redirect(`/app/w/${encodeURIComponent(m.ws.name)}/people`, 303);
    });

  change('/app/w/:ws/people/:id/role', async (m, target, form) => {
    await service.people.setRole(m.ws, target.email, form.get('role') ?? '', m.role);
  });
  change('/app/w/:ws/people/:id/remove', async (m, target) => {
    await service.people.remove(m.ws, target.email, m.role);
  });
}
