// The web app's sender addresses page: owners and admins register an exact mailbox on a
// domain of the workspace, disable, enable or remove one, as `svc addresses` does (the plan's
// address limit answers 402 with its sentence). Members get 403, other workspaces 404.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Service } from '../../../../src/service.js';
import { SvcError } from '../../../../src/errors.js';
import type { Workspace } from '../../../../src/model/workspace.js';
import { formToken } from '../../../../src/people/sign-in.js';
import { addressesPage } from '../pages.js';
import { appSession, refusalOf, type Member } from '../session.js';

export function appAddressRoutes(scope: FastifyInstance, service: Service): void {
  const { page, member, memberForm } = appSession(service);
  const show = async (reply: FastifyReply, code: number, m: Member, problem?: string) =>
    page(
      reply,
      code,
      addressesPage(formToken(m.token), { ws: m.ws.name, role: m.role }, await service.addresses.list(m.ws), problem ? { problem } : {}),
    );

  scope.get<{ Params: { ws: string } }>('/app/w/:ws/addresses', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'manage');
    return m ? show(reply, 200, m) : reply;
  });

  const act = (path: string, fn: (ws: Workspace, form: URLSearchParams, id: string) => Promise<unknown>) =>
    scope.post<{ Params: { ws: string; id?: string } }>(path, async (req, reply) => {
      const posted = await memberForm(req, reply, req.params.ws, 'manage');
      if (!posted) return reply;
      const { m, form } = posted;
      try {
        await fn(m.ws, form, req.params.id ?? '');
      } catch (e) {
        const r = refusalOf(e);
        if (!r) throw e;
        return show(reply, r.code, m, r.text);
      }
      return reply.redirect(`/app/w/${encodeURIComponent(m.ws.name)}/addresses`, 303);
    });

  act('/app/w/:ws/addresses', (ws, form) => service.addresses.add(ws, form.get('address') ?? ''));
  // By id only: an address of another workspace is not found here.
  const own = async (ws: Workspace, id: string) => {
    const a = (await service.addresses.list(ws)).find((x) => x.id === id);
    if (!a) throw new SvcError('not_found', 'no such address in this workspace');
    return a.id;
  };
  act('/app/w/:ws/addresses/:id/disable', async (ws, _f, id) => service.addresses.setStatus(ws, await own(ws, id), 'disabled'));
  act('/app/w/:ws/addresses/:id/enable', async (ws, _f, id) => service.addresses.setStatus(ws, await own(ws, id), 'active'));
  act('/app/w/:ws/addresses/:id/remove', async (ws, _f, id) => service.addresses.remove(ws, await own(ws, id)));
}
