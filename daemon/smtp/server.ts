// The base of svc's SMTP listeners (the relay now, the inbound MX next): smtp-server speaks the
// protocol; this adds what it does not do and every listener needs. Connections are capped in all
// and per address (421 4.7.0 at connect, before any greeting), each is closed at a time limit,
// smtp-server's own replies are rewritten to the spec's texts (replies.ts), refusals become replies
// from the error registry in one place (src/errors.ts), and message data held in memory is
// budgeted over all sessions. The listener configures only its decisions: AUTH, MAIL, RCPT, DATA.
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import type { Socket } from 'node:net';
import { smtpReplyOf, SvcError, type ErrorKindName } from '../../src/errors.js';
import type { Log } from '../../src/log.js';
import { reverseName, type ResolveFn } from '../../src/domains/dns.js';
import { rewriteReply } from './replies.js';

/** spec.md "Other constants": SMTP takes 25 MB per message and 1,000 recipients, on the relay and the MX alike. */
export const SMTP_MAX_SIZE = 25 * 1024 * 1024;
export const SMTP_MAX_RECIPIENTS = 1000;

export interface ListenerLimits {
  /** A connection is closed after this long (spec: 5 minutes). */
  maxConnectionMs: number;
  /** Connections open at once, in all and from one address; more get 421 4.7.0 at connect. */
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Message data held in memory at once over all sessions (DataBudget). */
  dataMemory: number;
}

export interface SmtpConnection {
  id: string;
  session: SMTPServerSession;
  send(code: number, data?: string | string[], context?: string | false): void;
  close(): void;
  _socket: Socket;
}

/** The MAIL FROM parameters of what every listener advertises: SIZE (RFC 1870) and 8BITMIME (RFC 6152). */
const MAIL_PARAMETERS = ['SIZE', 'BODY'] as const;

/** A refusal as smtp-server takes it: the reply of its kind in the error registry. */
export function smtpError(err: SvcError): Error & { responseCode: number } {
  const { code, text } = smtpReplyOf(err);
  return Object.assign(new Error(text), { responseCode: code });
}

export const refusal = (kind: ErrorKindName, message?: string) => smtpError(new SvcError(kind, message));

/** A reply as one line, `421 4.7.0 ...`, for logs and for refusals written to a bare socket. */
export function replyLine(e: SvcError): string {
  const r = smtpReplyOf(e);
  return `${r.code} ${r.text}`;
}

/** Message data in memory over all sessions: a message takes its bytes as they come, and gives them back. */
export class DataBudget {
  held = 0;
  constructor(readonly max: number) {}
  /** False when these bytes would pass the budget (nothing is taken then). */
  take(n: number): boolean {
    if (this.held + n > this.max) return false;
    this.held += n;
    return true;
  }
  give(n: number): void {
    this.held -= n;
  }
}

/**
 * A connection that greets at once. smtp-server waits a hard-coded 100 ms before every greeting
 * (its early-talker check), which caps a client that opens a connection per message at about ten
 * messages a second; on an authenticated submission port (the relay) early talkers are no threat.
 * Its init() without the pause: what smtp-server's does (set the socket's handlers, then greet)
 * but the timer. It leans on a private method, `_setListeners`: test/daemon/smtp-server.test.ts
 * fails when an upgrade of smtp-server changes it. No upstream option exists (smtp-server 3.21).
 */
class EagerConnection extends SMTPConnection {
  override init(): void {
    this._setListeners(() => this.connectionReady());
  }
}

/** An smtp-server whose replies go through our table and whose connections we can close. */
class Server extends SMTPServer {
  onConnection: (c: SmtpConnection) => void = () => {};
  /** The reply that turns a new socket away, or null to take it (before any greeting). */
  admit: (socket: Socket) => string | null = () => null;
  /** Greets without smtp-server's early-talker pause (EagerConnection). */
  greetAtOnce = false;
  // smtp-server's own connect(), with our admission first, our connection class, and the
  // connection handed to us (smtp-server has no hook that hands it over).
  override connect(socket: Socket, socketOptions?: ConstructorParameters<typeof SMTPConnection>[2]): void {
    const refused = this.admit(socket);
    if (refused) {
      // No greeting delay and no session: one line and the socket is closed.
      socket.on('error', () => {});
      socket.end(`${refused}\r\n`);
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    const self = this as unknown as {
      connections: Set<unknown>;
      _onError(e: Error): void;
      _onClientConnect(data: unknown): void;
    };
    const connection = new (this.greetAtOnce ? EagerConnection : SMTPConnection)(this, socket, socketOptions);
    self.connections.add(connection);
    connection.on('error', (e: Error) => self._onError(e));
    connection.on('connect', (data: unknown) => self._onClientConnect(data));
    connection.init();
    this.onConnection(connection as unknown as SmtpConnection);
  }
}

/** A PTR look-up through svc's own resolvers: the names of an address, or none. */
export type ReverseLookup = (ip: string) => Promise<string[]>;

/** A PTR look-up through `resolve` (the configured --dns-server, answers kept as it keeps them). */
export const reverseThrough =
  (resolve: ResolveFn): ReverseLookup =>
  async (ip) => {
    try {
      // A copy: smtp-server takes names off the array it is given, and the answer is a kept one.
      return [...((await resolve(reverseName(ip), 'PTR')) as string[])];
    } catch {
      return [];
    }
  };

/**
 * What every svc listener tells smtp-server alike: its name (the mx host), STARTTLS with our
 * certificate (TLS 1.2 or later), 25 MB, a 5 s grace on shutdown, the extensions it does not offer,
 * and the client's reverse look-up through svc's resolvers (smtp-server's own asks the system's,
 * outside a closed network and blind to --dns-server).
 */
export function sharedServerOptions(
  name: string,
  tls: { cert: string; key: string },
  size: number,
  /** null: the client's name is never looked up (the relay, whose clients log in with a key). */
  reverse: ReverseLookup | null,
): SMTPServerOptions {
  return {
    name,
    ...(reverse
      ? {
          resolver: {
            reverse: (ip: string, cb: (err: Error | null, names?: string[]) => void) =>
              void reverse(ip).then(
                (names) => cb(null, names),
                (e: Error) => cb(e),
              ),
          },
        }
      : { disableReverseLookup: true }),
    secure: false,
    key: tls.key,
    cert: tls.cert,
    minVersion: 'TLSv1.2',
    // On shutdown, sessions get 5 s to finish (smtp-server's default is 30) before 421: nothing
    // unacknowledged is lost, a client retries, and a stop is not held up by idle clients.
    closeTimeout: 5_000,
    size,
    // Advertised (RFC 2034): every reply carries its enhanced code, written by us (replies.ts and
    // the error registry), never added by smtp-server (replies are sent with no context for it).
    hideENHANCEDSTATUSCODES: false,
    hideDSN: true,
    hideREQUIRETLS: true,
    // UTF-8 addresses are not taken (nor delivered): not advertised, and a MAIL FROM that asks for
    // it anyway is answered 555 (listenSmtp), as are DSN's and REQUIRETLS's parameters.
    hideSMTPUTF8: true,
  };
}

export interface SmtpListener {
  url: string;
  budget: DataBudget;
  /** Says the reply of `kind` on that connection and closes it. */
  hangUp(id: string, kind: ErrorKindName): void;
  /**
   * The answer to a message is being decided (the store may have taken it): the connection's time
   * limit waits for it, so a client is never cut off from a reply that would say it was queued.
   */
  answering(id: string, decided: Promise<unknown>): void;
  connection(id: string): SmtpConnection | undefined;
  stats(): { connections: number; addresses: number; dataHeld: number };
  /** A new STARTTLS certificate for connections from now on (SIGHUP). */
  setTls(tls: { cert: string; key: string }): void;
  close(): Promise<void>;
}

export async function listenSmtp(opts: {
  /** The listener's name in logs (relay, mx). */
  name: string;
  host: string;
  port: number;
  limits: ListenerLimits;
  log: Log;
  /** smtp-server's options: the listener's handlers and settings. */
  server: SMTPServerOptions;
  /** Told of every connection taken, after the base has set it up. */
  onConnection?: (c: SmtpConnection) => void;
  /** Greets without smtp-server's 100 ms early-talker pause (an authenticated port). */
  greetAtOnce?: boolean;
}): Promise<SmtpListener> {
  const { limits, log } = opts;
  const connections = new Map<string, SmtpConnection>();
  const timers = new Map<string, NodeJS.Timeout>();
  const openByAddress = new Map<string, number>();
  let open = 0;
  const budget = new DataBudget(limits.dataMemory);
  const pending = new Map<string, Promise<unknown>>();
  const hangUp = (id: string, kind: ErrorKindName) => {
    const c = connections.get(id);
    if (!c) return;
    const waiting = pending.get(id);
    if (waiting && kind === 'connection_time_limit') {
      // After the answer (smtp-server writes it in the same tick the promise settles).
      void waiting.finally(() => setImmediate(() => hangUp(id, kind)));
      return;
    }
    const { code, text } = smtpReplyOf(new SvcError(kind));
    c.send(code, text);
    c.close();
  };

  // A parameter of an extension we do not advertise (SMTPUTF8, DSN's, REQUIRETLS) is refused with
  // 555 (RFC 5321 §4.1.1.11) before the listener's own decision: taking it would promise what it means.
  const unadvertised = (args: unknown, allowed: readonly string[]): string | undefined =>
    args && typeof args === 'object' ? Object.keys(args).find((k) => !allowed.includes(k.toUpperCase())) : undefined;
  const server = new Server({
    socketTimeout: limits.maxConnectionMs,
    logger: false,
    ...opts.server,
    onMailFrom(address, session, callback) {
      const p = unadvertised(address.args, MAIL_PARAMETERS);
      if (p) return callback(refusal('unsupported_parameter', `${p} is not supported here`));
      return opts.server.onMailFrom ? opts.server.onMailFrom(address, session, callback) : callback();
    },
    onRcptTo(address, session, callback) {
      const p = unadvertised(address.args, []);
      if (p) return callback(refusal('unsupported_parameter', `${p} is not supported here`));
      return opts.server.onRcptTo ? opts.server.onRcptTo(address, session, callback) : callback();
    },
  });
  server.greetAtOnce = opts.greetAtOnce ?? false;
  /**
   * A session's place in the connection counts is given back as soon as it is over for the client:
   * when we answer QUIT with 221, when the client closes its side, or when the socket closes,
   * whichever comes first. Waiting for the socket's close alone let a client that reconnects at once
   * (never holding more than the cap) meet `421 Too many connections from your address`.
   */
  const releases = new WeakMap<Socket, () => void>();
  server.admit = (socket) => {
    const ip = socket.remoteAddress ?? '';
    const mine = openByAddress.get(ip) ?? 0;
    if (open >= limits.maxConnections) return replyLine(new SvcError('too_many_connections'));
    if (mine >= limits.maxConnectionsPerAddress) return replyLine(new SvcError('too_many_connections_from_address'));
    open++;
    openByAddress.set(ip, mine + 1);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      open--;
      const n = (openByAddress.get(ip) ?? 1) - 1;
      if (n > 0) openByAddress.set(ip, n);
      else openByAddress.delete(ip);
    };
    releases.set(socket, release);
    socket.once('end', release);
    socket.once('close', release);
    return null;
  };
  server.onConnection = (c) => {
    connections.set(c.id, c);
    const send = c.send.bind(c);
    const release = releases.get(c._socket);
    // The one table of replies: smtp-server's own texts become the spec's.
    c.send = (code, data, context) => {
      const r = rewriteReply(code, data, context);
      send(r.code, r.data, false);
      // 221: the session is over (QUIT); the client may connect again before this socket closes.
      if (r.code === 221) release?.();
    };
    timers.set(
      c.id,
      setTimeout(() => hangUp(c.id, 'connection_time_limit'), limits.maxConnectionMs),
    );
    c._socket.once('close', () => {
      clearTimeout(timers.get(c.id));
      timers.delete(c.id);
      pending.delete(c.id);
      connections.delete(c.id);
      // A broken connection in the middle of DATA accepts nothing: the transaction is dropped.
      if (c.session?.envelope?.mailFrom && (c as unknown as { _dataStream?: unknown })._dataStream)
        log.info(`${opts.name}: 554 5.6.0 connection broke during DATA (${c.id}); nothing queued`);
    });
    opts.onConnection?.(c);
  };
  server.on('error', (e) => log.warn(`${opts.name}: ${e.message}`));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.server.address() as { port: number };
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `smtp://${host}:${addr.port}`,
    budget,
    hangUp,
    connection: (id) => connections.get(id),
    answering(id, decided) {
      pending.set(id, decided);
      void decided
        .finally(() => {
          if (pending.get(id) === decided) pending.delete(id);
        })
        .catch(() => {});
    },
    stats: () => ({ connections: open, addresses: openByAddress.size, dataHeld: budget.held }),
    setTls: (tls) =>
      (server as unknown as { updateSecureContext(o: { cert: string; key: string }): void }).updateSecureContext({
        cert: tls.cert,
        key: tls.key,
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers.values()) clearTimeout(t);
        server.close(() => resolve());
      }),
  };
}
