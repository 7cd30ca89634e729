// Connections to one SMTP server, reused across messages: nodemailer's SMTPConnection without its
// Mail and SMTPPool layers, which run every raw message through MailComposer's compile plugins and
// a stream per message (measured here: 0.38 ms of main-thread CPU per 20 KB message through
// createTransport({ pool: true }), 0.15 ms through this pool, and less than half the wall time).
// The reuse rules follow nodemailer's pool: a refused message leaves the connection usable after
// RSET; a reused connection the server dropped before the message went out is replaced once.
import type { ConnectionOptions } from 'node:tls';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

export interface SmtpPoolOptions {
  host: string;
  port: number;
  /** Implicit TLS (smtps://); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  /** Carry on in plaintext when the server refuses STARTTLS (direct MX); a smarthost does not. */
  opportunisticTLS: boolean;
  /** No STARTTLS at all (a direct MX whose TLS handshake failed). */
  ignoreTLS?: boolean;
  tls: ConnectionOptions;
  auth?: { user: string; pass: string };
  /** Name in EHLO. */
  name: string;
  timeoutMs: number;
  maxConnections: number;
  /** Messages over one connection before it is closed and a fresh one opened. */
  maxMessages: number;
  /** An unused connection is closed after this long. */
  idleMs: number;
}

export interface SmtpError extends Error {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

interface Conn {
  c: SMTPConnection;
  messages: number;
  gone: boolean;
  /** Held by a bulk sender now (counted in SmtpPool's bulk share). */
  bulk?: boolean;
  idleTimer?: NodeJS.Timeout;
  /** Fails the message being sent over it (abort: SMTPConnection.close() drops its callback). */
  fail?: (e: Error) => void;
}

interface Waiter {
  resolve: (c: Conn) => void;
  reject: (e: Error) => void;
  urgent: boolean;
}

const closedError = () => Object.assign(new Error('the delivery pool is closed'), { code: 'ECONNECTION' });

/** A hand-off cut short because the daemon is stopping (SmtpPool.abort). */
export class HandOffAborted extends Error {
  constructor() {
    super('svc stopped during this hand-off');
  }
}

const transient = (e: SmtpError) => e.responseCode === 421 || e.code === 'ECONNECTION' || e.code === 'ESOCKET' || e.code === 'ETIMEDOUT';

/** Runs one callback-style step of a connection, failing too when the connection errors or ends first. */
function step<T>(c: SMTPConnection, run: (done: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onError = (e: Error) => finish(e);
    const onEnd = () => finish(Object.assign(new Error('Connection closed unexpectedly'), { code: 'ECONNECTION', command: 'CONN' }));
    const finish = (err: Error | null | undefined, value?: T) => {
      c.off('error', onError);
      c.off('end', onEnd);
      if (err) reject(err);
      else resolve(value as T);
    };
    c.once('error', onError);
    c.once('end', onEnd);
    run(finish);
  });
}

export class SmtpPool {
  #idle: Conn[] = [];
  #open = 0;
  /** Senders waiting for a connection: urgent ones (transactional mail) ahead of the others. */
  #waiting: Waiter[] = [];
  #closed = false;
  /** Every open connection, busy or idle (abort ends them all). */
  #all = new Set<Conn>();
  /** Connections held by bulk senders (or being opened for one). */
  #bulkHeld = 0;

  constructor(private readonly opts: SmtpPoolOptions) {}

  /** Sends one message; resolves with the server's answer (recipients refused among them), or fails as SMTPConnection does. */
  async send(envelope: { from: string; to: string[] }, raw: Buffer, urgent = true): Promise<SMTPConnection.SentMessageInfo> {
    for (let attempt = 0; ; attempt++) {
      const conn = await this.#acquire(urgent);
      const reused = conn.messages > 0;
      conn.messages++;
      try {
        // With its size, so a server that offers SIZE can refuse a message too large at MAIL FROM.
        const info = await new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) => {
          conn.fail = reject;
          conn.c.send({ ...envelope, size: raw.length } as SMTPConnection.Envelope, raw, (e, i) => (e ? reject(e) : resolve(i)));
        }).finally(() => (conn.fail = undefined));
        // Whether this session ran over TLS, and the server's address (for the attempt's transcript:
        // a smarthost is named by its host, which may resolve to several).
        const c = conn.c as unknown as { secure: boolean; _socket?: { remoteAddress?: string } };
        (info as { tls?: boolean }).tls = c.secure === true;
        (info as { ip?: string }).ip = c._socket?.remoteAddress;
        this.#release(conn);
        return info;
      } catch (e) {
        if (e instanceof HandOffAborted) throw e;
        const err = e as SmtpError;
        // Dropped by the server while idle, found out at MAIL FROM: not a byte of the message went.
        if (reused && attempt === 0 && transient(err) && (err.command === 'CONN' || err.command === 'API' || err.command === 'MAIL FROM')) {
          this.#discard(conn);
          continue;
        }
        if ((err.code === 'EENVELOPE' || err.code === 'EMESSAGE') && err.responseCode !== 421 && !conn.gone) {
          // The server refused this message; the session itself is fine once reset.
          conn.c.reset((resetErr) => (resetErr ? this.#discard(conn) : this.#release(conn)));
        } else {
          this.#discard(conn);
        }
        throw err;
      }
    }
  }

  close(): void {
    this.#closed = true;
    for (const conn of [...this.#idle]) this.#discard(conn);
    for (const w of this.#waiting.splice(0)) w.reject(closedError());
  }

  /**
   * The daemon is stopping and its grace is over: every session ends now, mid-transaction or
   * still waiting for a greeting, and what was being sent fails with HandOffAborted.
   */
  abort(): void {
    this.close();
    for (const conn of [...this.#all]) {
      conn.fail?.(new HandOffAborted());
      this.#discard(conn);
    }
  }

  /**
   * Bulk senders (broadcast and sequence copies) hold at most all connections but one: the last is
   * kept for urgent ones, so a password reset never waits for a broadcast's transaction to end
   * (docs/lists-and-campaigns.md "Broadcasts and sequences"). With one connection allowed, bulk may take it.
   */
  get #bulkLimit(): number {
    return Math.max(1, this.opts.maxConnections - 1);
  }

  #acquire(urgent: boolean): Promise<Conn> {
    if (this.#closed) return Promise.reject(closedError());
    const mayTake = urgent || this.#bulkHeld < this.#bulkLimit;
    // Nor do they take the last idle connection while they may open another: it stays warm for
    // the next urgent sender, who would otherwise wait for a new session's greeting (about 100 ms
    // to a loopback smtp-server doing its reverse lookup; more to a distant MX).
    const keepWarm = !urgent && this.#idle.length === 1 && this.#open < this.opts.maxConnections;
    const idle = mayTake && !keepWarm ? this.#idle.pop() : undefined;
    if (idle) {
      clearTimeout(idle.idleTimer);
      return Promise.resolve(this.#hold(idle, urgent));
    }
    if (mayTake && this.#open < this.opts.maxConnections) return this.#connectFor(urgent);
    return new Promise((resolve, reject) => {
      const at = urgent ? this.#waiting.findIndex((w) => !w.urgent) : -1;
      this.#waiting.splice(at < 0 ? this.#waiting.length : at, 0, { resolve, reject, urgent });
    });
  }

  #hold(conn: Conn, urgent: boolean): Conn {
    conn.bulk = !urgent;
    if (!urgent) this.#bulkHeld++;
    return conn;
  }

  #unhold(conn: Conn): void {
    if (conn.bulk) this.#bulkHeld--;
    conn.bulk = false;
  }

  /** A new connection for a sender, counted in the bulk share from the start when it is bulk. */
  async #connectFor(urgent: boolean): Promise<Conn> {
    if (!urgent) this.#bulkHeld++;
    try {
      const conn = await this.#connect();
      conn.bulk = !urgent;
      return conn;
    } catch (e) {
      if (!urgent) this.#bulkHeld--;
      throw e;
    }
  }

  /** The next waiting sender that may have a connection now (urgent ones first; bulk within its share). */
  #nextWaiter(): Waiter | undefined {
    const w = this.#waiting[0];
    if (this.#closed || !w || (!w.urgent && this.#bulkHeld >= this.#bulkLimit)) return undefined;
    return this.#waiting.shift();
  }

  async #connect(): Promise<Conn> {
    this.#open++;
    const o = this.opts;
    const c = new SMTPConnection({
      host: o.host,
      port: o.port,
      secure: o.secure,
      opportunisticTLS: o.opportunisticTLS,
      ignoreTLS: o.ignoreTLS ?? false,
      tls: o.tls,
      name: o.name,
      connectionTimeout: o.timeoutMs,
      greetingTimeout: o.timeoutMs,
      socketTimeout: o.timeoutMs,
      logger: false,
    } as SMTPConnection.Options);
    const conn: Conn = { c, messages: 0, gone: false };
    this.#all.add(conn);
    // Errors also reach the step or send that was running; an idle connection's error only ends it.
    c.on('error', () => {});
    c.once('end', () => this.#gone(conn));
    try {
      await step<void>(c, (done) => c.connect((e?: Error) => done(e)));
      if (o.auth && c.allowsAuth)
        await step<void>(c, (done) => c.login({ credentials: { user: o.auth!.user, pass: o.auth!.pass } }, (e) => done(e)));
    } catch (e) {
      this.#discard(conn);
      throw e;
    }
    return conn;
  }

  #release(conn: Conn): void {
    this.#unhold(conn);
    if (conn.gone) return;
    if (this.#closed || conn.messages >= this.opts.maxMessages) {
      conn.c.quit();
      this.#gone(conn);
      return;
    }
    const waiter = this.#nextWaiter();
    if (waiter) return waiter.resolve(this.#hold(conn, waiter.urgent));
    this.#idle.push(conn);
    // An idle connection says QUIT before it goes, as a well-behaved client does.
    conn.idleTimer = setTimeout(() => {
      conn.c.quit();
      this.#gone(conn);
    }, this.opts.idleMs);
    conn.idleTimer.unref();
  }

  #discard(conn: Conn): void {
    conn.c.close();
    this.#gone(conn);
  }

  /** Counted out once, however it ended; a waiting sender gets a fresh connection in its place. */
  #gone(conn: Conn): void {
    this.#unhold(conn);
    if (conn.gone) return;
    conn.gone = true;
    this.#all.delete(conn);
    clearTimeout(conn.idleTimer);
    this.#open--;
    const i = this.#idle.indexOf(conn);
    if (i >= 0) this.#idle.splice(i, 1);
    const waiter = this.#nextWaiter();
    if (waiter) this.#connectFor(waiter.urgent).then(waiter.resolve, waiter.reject);
  }
}
