// What an HTTP listener (the API, the metrics listener) owes the rest of the daemon, as the SMTP
// base does for the relay and the MX: connections capped in all and per address (503 at once,
// before anything is read), and no request held open by a client that sends slowly: its header
// block within a deadline, its body at a least rate, all of it within another (408). A client that
// sent a byte every ten seconds could otherwise hold a descriptor for ever, and a thousand of them
// took every descriptor of the process.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { compile } from '@fastify/proxy-addr';
import { errorKinds, type ErrorKindName } from '../../src/errors.js';

/** Whether an address is one of --trusted-proxy's (the matcher fastify's trustProxy uses too). */
export function compileProxies(list: string[]): (ip: string) => boolean {
  const trust = compile(list);
  return (ip) => trust(ip, 0);
}

export interface HttpLimits {
  /** Connections open at once, in all and from one address (a trusted proxy's are not counted per address). */
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** A whole request (headers and body) is in within this (Node's requestTimeout). */
  requestTimeoutMs: number;
  /** The header block is in within this (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** A body, once this long in coming, arrives at least this fast (bytes a second). */
  minBodyRate: number;
  bodyGraceMs: number;
  /** Addresses whose connections are a proxy's, many people's: capped in all only. */
  trusted?: (ip: string) => boolean;
}

/** The limits of a listener whose whole requests must be in within `requestTimeoutMs`. */
export function httpLimits(
  o: Pick<HttpLimits, 'maxConnections' | 'maxConnectionsPerAddress' | 'requestTimeoutMs' | 'trusted'>,
): HttpLimits {
  return {
    ...o,
    headersTimeoutMs: Math.min(10_000, o.requestTimeoutMs),
    minBodyRate: 1024,
    bodyGraceMs: Math.min(5_000, o.requestTimeoutMs / 2),
  };
}

/** How often bodies in progress are looked at (and Node checks its own deadlines). */
const CHECK_MS = 1_000;

/** What the server must be made with (Node reads it only then): its deadlines checked every CHECK_MS, not every 30 s. */
export const HTTP_SERVER_OPTIONS = { connectionsCheckingInterval: CHECK_MS };

/** An answer written straight to a socket no request was read from: the registry's status and text. */
function refuse(socket: Socket, kind: ErrorKindName): void {
  const { http, message } = errorKinds[kind];
  const body = JSON.stringify({ error: message });
  socket.on('error', () => {});
  socket.end(
    `HTTP/1.1 ${http} ${http === 503 ? 'Service Unavailable' : 'Request Timeout'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1_000).unref();
}

export interface HttpGuard {
  stats(): { connections: number; addresses: number; refused: number; slow: number };
  close(): void;
}

/** Puts `server` under `limits`; `onRefuse` hears each refusal (the log, throttled, and metrics). */
export function guardHttp(server: Server, limits: HttpLimits, onRefuse: (kind: ErrorKindName, ip: string) => void): HttpGuard {
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  let open = 0;
  let refused = 0;
  let slow = 0;
  const byAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? '';
    const mine = byAddress.get(ip) ?? 0;
    const kind: ErrorKindName | null =
      open >= limits.maxConnections
        ? 'too_many_connections'
        : !limits.trusted?.(ip) && mine >= limits.maxConnectionsPerAddress
          ? 'too_many_connections_from_address'
          : null;
    if (kind) {
      refused++;
      onRefuse(kind, ip);
      refuse(socket, kind);
      return;
    }
    open++;
    byAddress.set(ip, mine + 1);
    socket.once('close', () => {
      open--;
      const n = (byAddress.get(ip) ?? 1) - 1;
      if (n > 0) byAddress.set(ip, n);
      else byAddress.delete(ip);
    });
  });
  // Bodies in progress: each request with one until it is whole, with where its socket was when last looked at.
  const bodies = new Map<IncomingMessage, { res: ServerResponse; since: number; read: number }>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.complete || (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)) return;
    bodies.set(req, { res, since: Date.now(), read: req.socket.bytesRead });
    const done = () => bodies.delete(req);
    req.once('end', done);
    res.once('close', done);
  });
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [req, b] of bodies) {
      if (req.complete) {
        bodies.delete(req);
        continue;
      }
      const got = req.socket.bytesRead - b.read;
      const elapsed = now - b.since;
      if (elapsed < limits.bodyGraceMs) continue;
      if (got < (limits.minBodyRate * elapsed) / 1000) {
        bodies.delete(req);
        slow++;
        onRefuse('request_timeout', req.socket.remoteAddress ?? '');
        if (!b.res.headersSent) {
          const { http, message } = errorKinds.request_timeout;
          b.res.writeHead(http, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ error: message }));
        }
        req.socket.destroySoon();
      } else {
        // Measured over the last look only: a body that came fast and then stopped is caught too.
        b.since = now;
        b.read = req.socket.bytesRead;
      }
    }
  }, CHECK_MS);
  timer.unref();
  return {
    stats: () => ({ connections: open, addresses: byAddress.size, refused, slow }),
    close: () => clearInterval(timer),
  };
}
