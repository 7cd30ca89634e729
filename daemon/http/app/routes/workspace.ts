// The web app's workspace page and message log: every role reads the plan, the quotas
// and a trial's dates, the message log with its filters, and one message's timeline. Owners (only)
// delete the workspace (src/workspaces/deletion.ts): gone at once, its data removed in batches.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Service } from '../../../../src/service.js';
import { isSvcError } from '../../../../src/errors.js';
import { MESSAGE_STATUSES } from '../../../../src/messages/log.js';
import { appPage, notFoundPage } from '../pages.js';
import { formToken } from '../../../../src/people/sign-in.js';
import { explainPage, messagesPage, workspacePage } from '../workspace-pages.js';
import { html } from '../../../../src/html.js';
import { appSession, type Member } from '../session.js';

const PER_PAGE = 50;

export function appWorkspaceRoutes(scope: FastifyInstance, service: Service): void {
  const { page, member, memberForm } = appSession(service);
  const show = async (reply: FastifyReply, code: number, m: Member, problem?: string) =>
    page(
      reply,
      code,
      workspacePage(
        { ws: m.ws.name, role: m.role },
        await service.workspaces.show(m.ws.name),
        service.deps.clock.now(),
        service.deps.config.upgradeUrl ?? null,
        { form: formToken(m.token), ...(problem ? { problem } : {}) },
      ),
    );

  scope.get<{ Params: { ws: string } }>('/app/w/:ws/workspace', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'inbox');
    if (!m) return reply;
    return show(reply, 200, m);
  });

  scope.post<{ Params: { ws: string } }>('/app/w/:ws/delete', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'own');
    if (!posted) return reply;
    const { m, form } = posted;
    if ((form.get('confirm') ?? '').trim() !== m.ws.name)
      return show(reply, 400, m, `to delete the workspace, type its name, ${m.ws.name}, exactly.`);
    await service.deletion.request(m.ws, `owner:${m.who.account.email}`);
    return page(
      reply,
      200,
      appPage(
        'Workspace deleted',
        html`<p>The workspace ${m.ws.name} is deleted: nobody can use it any more, and its data is being removed.</p><p><a href="/app/">Back to svc</a></p>`,
      ),
    );
  });

  scope.get<{ Params: { ws: string }; Querystring: Record<string, string> }>('/app/w/:ws/messages', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'inbox');
    if (!m) return reply;
    const status = (MESSAGE_STATUSES as readonly string[]).includes(req.query.status ?? '') ? req.query.status! : '';
    const to = (req.query.to ?? '').trim().slice(0, 254);
    const n = Number(req.query.page);
    const p = Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
    const r = await service.messages.list(m.ws, {
      ...(status ? { status } : {}),
      ...(to ? { recipient: to } : {}),
      limit: PER_PAGE,
      offset: (p - 1) * PER_PAGE,
    });
    return page(
      reply,
      200,
      messagesPage(
        { ws: m.ws.name, role: m.role },
        { rows: r.data, total: r.total, status, to, page: p, per: PER_PAGE, statuses: MESSAGE_STATUSES },
      ),
    );
  });

  scope.get<{ Params: { ws: string; id: string } }>('/app/w/:ws/messages/:id', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'inbox');
    if (!m) return reply;
    try {
      const msg = await service.messages.get(m.ws, req.params.id);
      const { timeline } = await service.explain(m.ws, req.params.id);
      return page(reply, 200, explainPage({ ws: m.ws.name, role: m.role }, msg, timeline));
    } catch (e) {
      if (!isSvcError(e) || e.kind !== 'not_found') throw e;
      return page(reply, 404, notFoundPage('message in this workspace'));
    }
  });
}
