// The team inbox in the browser: every member of a workspace reads and answers it. The
// threads of the Inbox (with received mail, not archived) or the Archived view, a search by address
// or subject, the Sent folder, one thread (opening an unread thread marks it read, for the team),
// mark read/unread, archive, and a reply through the one pipeline, counted against the inbox sends
// per day (429 said as a sentence with when it resets). New mail arrives over inbox-live.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Service } from '../../../../src/service.js';
import { isSvcError, type SvcError } from '../../../../src/errors.js';
import { formToken } from '../../../../src/people/sign-in.js';
import { SEARCH_MAX } from '../../../../src/inbox/inbox.js';
import { notFoundPage } from '../pages.js';
import { sentPage, threadPage, threadsPage, type ThreadMessage } from '../inbox-pages.js';
import { appSession, refusalOf, type Member } from '../session.js';
import type { inboxLive } from '../../inbox-live.js';

/** Threads (or Sent messages) a page lists. */
const PER_PAGE = 50;
/** A thread page shows its newest messages, bodies and all; a longer thread says how many are left out. */
const THREAD_SHOWN = 50;

const pageNo = (v: string | undefined) => {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
};
const nav = (m: Member) => ({ ws: m.ws.name, role: m.role });
/**
 * The inbox and thread pages answer `Accept: application/json` with the data they show (the same
 * session, store reads and checks): what the benchmark sets the rendering against.
 */
const wantsJson = (req: FastifyRequest) => req.headers.accept === 'application/json';

/** A quota refusal of a reply, as a sentence that says when the reader may try again. */
function quotaSentence(e: SvcError): string {
  const d = e.details ?? {};
  const resets = typeof d.resets_at === 'string' ? `${d.resets_at.slice(0, 16).replace('T', ' ')} UTC` : 'tomorrow';
  return `the workspace has sent the ${String(d.limit)} replies a day its plan allows from the inbox. You can reply again after ${resets}; your reply is kept below.`;
}

export function appInboxRoutes(scope: FastifyInstance, service: Service, live: ReturnType<typeof inboxLive>): void {
  const { page, member, memberForm } = appSession(service);
  const base = (m: Member) => `/app/w/${encodeURIComponent(m.ws.name)}/inbox`;
  const events = (m: Member) => `${base(m)}/events`;
  const notFound = (reply: FastifyReply) => page(reply, 404, notFoundPage('thread in this workspace'));

  scope.get<{ Params: { ws: string }; Querystring: Record<string, string> }>('/app/w/:ws/inbox', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'inbox');
    if (!m) return reply;
    const view = req.query.view === 'archived' ? 'archived' : 'inbox';
    const search = (req.query.q ?? '').trim().slice(0, SEARCH_MAX);
    const p = pageNo(req.query.page);
    // A search looks through every thread, archived and Sent-only ones too.
    const r = await service.inbox.threads(m.ws, { view: search ? 'all' : view, search, limit: PER_PAGE, offset: (p - 1) * PER_PAGE });
    if (wantsJson(req)) return reply.headers({ 'cache-control': 'no-store' }).send(r);
    return page(
      reply,
      200,
      threadsPage(nav(m), { view, search, threads: r.data, total: r.total, page: p, per: PER_PAGE, live: events(m) }),
    );
  });

  scope.get<{ Params: { ws: string }; Querystring: Record<string, string> }>('/app/w/:ws/inbox/sent', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'inbox');
    if (!m) return reply;
    const p = pageNo(req.query.page);
    const r = await service.inbox.list(m.ws, { folder: 'sent', limit: PER_PAGE, offset: (p - 1) * PER_PAGE });
    return page(reply, 200, sentPage(nav(m), { items: r.data, total: r.total, page: p, per: PER_PAGE }));
  });

  scope.get<{ Params: { ws: string } }>('/app/w/:ws/inbox/events', async (req, reply) => {
    const m = await member(req, reply, req.params.ws, 'inbox');
    return m ? live.stream(req, reply, m.ws.id, m.token) : reply;
  });

  /** The thread page, or null when the workspace has no such thread. */
  const showThread = async (
    reply: FastifyReply,
    m: Member,
    threadId: string,
    opts: { code?: number; images?: string; problem?: string; sent?: boolean; draft?: string; json?: boolean } = {},
  ) => {
    let t: Awaited<ReturnType<Service['inbox']['thread']>>;
    try {
      t = await service.inbox.thread(m.ws, threadId);
    } catch (e) {
      if (isSvcError(e) && e.kind === 'not_found') return null;
      throw e;
    }
    // Opening a thread reads it, for the team.
    if (t.unread) t = { ...t, ...(await service.inbox.mark(m.ws, threadId, { read: true })), unread: false };
    const shown = t.items.slice(-THREAD_SHOWN);
    const messages: ThreadMessage[] = await Promise.all(
      shown.map(async (s) => {
        const i = await service.inbox.get(m.ws, s.id);
        return {
          id: i.id,
          folder: i.folder,
          kind: i.kind,
          from: i.from,
          from_name: i.from_name,
          to: i.to,
          subject: i.subject,
          created_at: i.created_at,
          text: i.text,
          html: i.html,
          note: i.note,
          auth: i.auth,
        };
      }),
    );
    // The reply answers the newest message a person wrote (mail or a reply: not a report or an
    // automatic reply, often a machine's); in a thread of our mail and such notices only, it writes
    // to our recipient again.
    const newestFirst = [...messages].reverse();
    const replyTo =
      newestFirst.find((x) => x.kind === 'mail' || x.kind === 'reply') ?? newestFirst.find((x) => x.folder === 'sent') ?? null;
    const images = opts.images && messages.some((x) => x.id === opts.images) ? opts.images : null;
    const left = t.items.length - shown.length;
    if (opts.json)
      return reply
        .headers({ 'cache-control': 'no-store' })
        .send({ thread_id: t.thread_id, unread: t.unread, archived: t.archived, earlier: left, messages });
    const html = threadPage(nav(m), {
      form: formToken(m.token),
      thread: t,
      messages,
      replyTo,
      images,
      live: events(m),
      ...(opts.problem ? { problem: opts.problem } : {}),
      ...(opts.sent ? { sent: true } : {}),
      ...(opts.draft !== undefined ? { draft: opts.draft } : {}),
      ...(left ? { earlier: left } : {}),
    });
    return page(reply, opts.code ?? 200, html, { images: images !== null });
  };

  scope.get<{ Params: { ws: string; thread: string }; Querystring: Record<string, string> }>(
    '/app/w/:ws/inbox/t/:thread',
    async (req, reply) => {
      const m = await member(req, reply, req.params.ws, 'inbox');
      if (!m) return reply;
      const shown = await showThread(reply, m, req.params.thread, {
        ...(req.query.images ? { images: req.query.images } : {}),
        ...(req.query.sent === '1' ? { sent: true } : {}),
        json: wantsJson(req),
      });
      return shown ?? notFound(reply);
    },
  );

  scope.post<{ Params: { ws: string; thread: string } }>('/app/w/:ws/inbox/t/:thread/mark', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'inbox');
    if (!posted) return reply;
    const { m, form } = posted;
    const flag = (k: string) => (form.has(k) ? form.get(k) === 'true' : undefined);
    const read = flag('read');
    const archived = flag('archived');
    try {
      await service.inbox.mark(m.ws, req.params.thread, {
        ...(read !== undefined ? { read } : {}),
        ...(archived !== undefined ? { archived } : {}),
      });
    } catch (e) {
      const r = refusalOf(e);
      if (!r) throw e;
      if (r.code === 404) return notFound(reply);
      return (await showThread(reply, m, req.params.thread, { code: r.code, problem: r.text })) ?? notFound(reply);
    }
    // Archived or marked unread: done with it, back to the list; moved back: stay.
    return reply.redirect(archived === true || read === false ? base(m) : `${base(m)}/t/${encodeURIComponent(req.params.thread)}`, 303);
  });

  scope.post<{ Params: { ws: string; thread: string } }>('/app/w/:ws/inbox/t/:thread/reply', async (req, reply) => {
    const posted = await memberForm(req, reply, req.params.ws, 'inbox');
    if (!posted) return reply;
    const { m, form } = posted;
    const text = form.get('text') ?? '';
    const again = async (code: number, problem: string) =>
      (await showThread(reply, m, req.params.thread, { code, problem, draft: text })) ?? notFound(reply);
    // The item answered must be of this thread (and so of this workspace).
    const item = await service.inbox.get(m.ws, form.get('item') ?? '').catch((e) => {
      if (isSvcError(e) && e.kind === 'not_found') return null;
      throw e;
    });
    if (!item || item.thread_id !== req.params.thread) return notFound(reply);
    if (!text.trim()) return again(400, 'write a reply first.');
    try {
      await service.inbox.reply(m.ws, item.id, { text });
    } catch (e) {
      if (isSvcError(e) && e.kind === 'quota_exceeded') return again(429, quotaSentence(e as SvcError));
      const r = refusalOf(e);
      if (!r) throw e;
      return again(r.code, r.text);
    }
    await service.inbox.mark(m.ws, req.params.thread, { read: true });
    return reply.redirect(`${base(m)}/t/${encodeURIComponent(req.params.thread)}?sent=1`, 303);
  });
}
