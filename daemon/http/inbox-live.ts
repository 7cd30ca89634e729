// New mail in the browser without a reload: server-sent events to the inbox pages. The
// bus says only that the MX stored something (topic `received`, from this daemon or, on Postgres,
// another); once per quarter second at most, each workspace someone is watching is read once (its
// newest received item) and, when that changed, its streams get an `inbox` event with no data. The
// page's script then fetches itself again (/app/app.js). One read per watched workspace, not per
// stream: a thousand open pages cost a thousand sockets and callbacks, not a thousand reads.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Service } from '../../src/service.js';

/** Coalesces a burst of arrivals into one look. */
const SETTLE_MS = 250;
/** A comment line this often keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 25_000;
/** Streams one session may hold (a few tabs); more are refused with 429, so one person cannot hold the daemon's sockets. */
export const STREAMS_PER_SESSION = 16;
/** Streams in all (about 6 KB each: bench/RESULTS.md); more are refused with 503. */
export const STREAMS_MAX = 20_000;

export function inboxLive(app: FastifyInstance, service: Service) {
  const watchers = new Map<string, Set<() => void>>();
  /** Each watched workspace's newest received item when last looked (undefined: not looked yet). */
  const newest = new Map<string, string | null>();
  const streams = new Set<FastifyReply>();
  /** Open streams by session token. */
  const perSession = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;

  const look = async () => {
    timer = null;
    for (const [ws, set] of watchers) {
      const r = await service.store.inbox.list(ws, { folder: 'inbox', limit: 1, offset: 0 });
      const id = r.data[0]?.id ?? null;
      if (newest.has(ws) && newest.get(ws) === id) continue;
      newest.set(ws, id);
      for (const fn of set) fn();
    }
  };
  /** Each open stream's session and workspace, checked again when sessions end somewhere. */
  const holders = new Map<FastifyReply, { session: string; workspaceId: string }>();
  const recheck = async () => {
    for (const [reply, h] of holders) {
      const who = await service.signIn.session(h.session);
      if (!who || !who.memberships.some((m) => m.workspace_id === h.workspaceId)) reply.raw.end();
    }
  };
  const offSessions = service.bus.subscribe('sessions', () => {
    void recheck().catch((e) => service.deps.log.warn(`inbox live session check failed: ${(e as Error).message}`));
  });
  const off = service.bus.subscribe('received', () => {
    timer ??= setTimeout(
      () => void look().catch((e) => service.deps.log.warn(`inbox live update failed: ${(e as Error).message}`)),
      SETTLE_MS,
    );
  });
  // Open streams would hold the server's close: they end first.
  app.addHook('preClose', async () => {
    off();
    offSessions();
    if (timer) clearTimeout(timer);
    for (const reply of streams) reply.raw.end();
  });

  return {
    /** Answers with an event stream for a workspace; `inbox` events when its mail changed. `session`: the signed-in session's token. */
    stream(req: FastifyRequest, reply: FastifyReply, workspaceId: string, session: string): FastifyReply {
      const mine = perSession.get(session) ?? 0;
      if (mine >= STREAMS_PER_SESSION)
        return reply
          .code(429)
          .headers({ 'cache-control': 'no-store', 'retry-after': '60' })
          .type('text/plain')
          .send(`at most ${STREAMS_PER_SESSION} live pages at once per sign-in`);
      if (streams.size >= STREAMS_MAX)
        return reply
          .code(503)
          .headers({ 'cache-control': 'no-store', 'retry-after': '60' })
          .type('text/plain')
          .send('too many live pages open on this server');
      perSession.set(session, mine + 1);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-accel-buffering': 'no',
      });
      res.write('retry: 5000\n\n');
      const notify = () => res.write('event: inbox\ndata: \n\n');
      let set = watchers.get(workspaceId);
      if (!set) {
        watchers.set(workspaceId, (set = new Set()));
        // The first watcher looks now, so that what arrives next is news.
        void service.store.inbox.list(workspaceId, { folder: 'inbox', limit: 1, offset: 0 }).then(
          (r) => {
            if (!newest.has(workspaceId)) newest.set(workspaceId, r.data[0]?.id ?? null);
          },
          () => {},
        );
      }
      set.add(notify);
      streams.add(reply);
      holders.set(reply, { session, workspaceId });
      const keepalive = setInterval(() => res.write(': \n\n'), KEEPALIVE_MS);
      req.raw.socket.setTimeout(0);
      res.on('close', () => {
        const left = (perSession.get(session) ?? 1) - 1;
        if (left) perSession.set(session, left);
        else perSession.delete(session);
        clearInterval(keepalive);
        streams.delete(reply);
        holders.delete(reply);
        set.delete(notify);
        if (!set.size) {
          watchers.delete(workspaceId);
          newest.delete(workspaceId);
        }
      });
      return reply;
    },
    /** Open streams (the benchmark's count). */
    get open() {
      return streams.size;
    },
  };
}
