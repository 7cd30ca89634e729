// A sink SMTP server for tests: accepts mail like a recipient's MX (STARTTLS offered, with
// smtp-server's own certificate), keeps every message raw with its envelope, and can be told to
// refuse a recipient (5xx), defer (4xx) a number of times, or never answer.
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';

export interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  secure: boolean;
  user: string | undefined;
  /** MAIL FROM's parameters (SIZE=...) and the name the client gave in EHLO. */
  mailArgs: Record<string, string>;
  helo: string;
}

/** A refusal for a recipient (`sender`: the transaction's MAIL FROM), or null to take it. */
type Rule = (rcpt: string, sender: string) => { code: number; message: string } | null;

export class Sink {
  readonly received: Received[] = [];
  rcptRules: Rule[] = [];
  /** Delay before answering DATA, to keep messages in flight. */
  dataDelayMs = 0;
  /** While set, every DATA is answered only once it settles (a test holds messages in flight). */
  holdData: Promise<unknown> | null = null;
  /** Messages whose DATA is being held now. */
  held = 0;
  silent = false;
  /** Connections opened to the sink so far. */
  connections = 0;
  /** Replies given instead of accepting: at connect (a blocklist's 554, a 421), MAIL FROM, after DATA. */
  greeting: { code: number; message: string } | null = null;
  mailReply: { code: number; message: string } | null = null;
  dataReply: { code: number; message: string } | null = null;
  /** Recipients one transaction takes; past it RCPT gets 452 4.5.3 (an MX's own cap). */
  maxRcpt = Infinity;
  #server!: SMTPServer;
  #waiters: Array<{ n: number; resolve: () => void }> = [];
  port = 0;

  constructor(private readonly extra: Partial<SMTPServerOptions> = {}) {}

  async start(port = 0, host = '127.0.0.1'): Promise<this> {
    const refusal = (r: { code: number; message: string }) => Object.assign(new Error(r.message), { responseCode: r.code });
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: this.extra.onAuth ? [] : ['AUTH'],
      logger: false,
      size: 50 * 1024 * 1024,
      // A stop ends the sessions still open (the daemon keeps idle ones in its pool) with 421 after
      // this long; smtp-server's default, 30 s, held every test that stopped a sink beside a daemon.
      closeTimeout: 250,
      ...this.extra,
      onConnect: (_session, cb) => {
        this.connections++;
        if (this.silent) return;
        cb(this.greeting ? refusal(this.greeting) : undefined);
      },
      onMailFrom: (_address, _session, cb) => cb(this.mailReply ? refusal(this.mailReply) : undefined),
      onRcptTo: (address, session, cb) => {
        if (session.envelope.rcptTo.length >= this.maxRcpt) return cb(refusal({ code: 452, message: '4.5.3 Too many recipients' }));
        for (const rule of this.rcptRules) {
          const r = rule(address.address, session.envelope.mailFrom ? session.envelope.mailFrom.address : '');
          if (r) {
            const err = new Error(r.message) as Error & { responseCode: number };
            err.responseCode = r.code;
            return cb(err);
          }
        }
        cb();
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const finish = () => {
            if (this.dataReply) return cb(refusal(this.dataReply));
            this.received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              raw: Buffer.concat(chunks),
              secure: session.secure,
              user: session.user as string | undefined,
              mailArgs: (session.envelope.mailFrom && (session.envelope.mailFrom.args as Record<string, string>)) || {},
              helo: session.hostNameAppearsAs,
            });
            this.#waiters = this.#waiters.filter((w) => (this.received.length >= w.n ? (w.resolve(), false) : true));
            cb();
          };
          if (this.holdData) {
            this.held++;
            void this.holdData.then(() => (this.held--, finish()));
          } else if (this.dataDelayMs) setTimeout(finish, this.dataDelayMs);
          else finish();
        });
      },
    });
    // A sender that dies mid-session (the crash test kills it) resets its connection: not an error here.
    this.#server.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => resolve());
    });
    this.port = (this.#server.server.address() as { port: number }).port;
    return this;
  }

  /** Resolves once n messages have arrived in all. */
  /** Resolves once `n` messages are in; rejects after `ms` (a test never waits for ever). */
  waitFor(n: number, ms = 30_000): Promise<void> {
    if (this.received.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`sink: ${this.received.length} of ${n} messages after ${ms} ms`)), ms);
      timer.unref();
      this.#waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Refuses this recipient at RCPT with code and text, `times` times (default always). */
  refuse(address: string, code: number, message: string, times = Infinity): void {
    let left = times;
    this.rcptRules.push((rcpt) => (rcpt.toLowerCase() === address.toLowerCase() && left-- > 0 ? { code, message } : null));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export async function sink(t: { after(fn: () => unknown): void }, extra: Partial<SMTPServerOptions> = {}): Promise<Sink> {
  const s = await new Sink(extra).start();
  t.after(() => s.stop());
  return s;
}

/** DKIM-verifies a message with mailauth, public keys looked up in the given DNS server. */
export async function verifyDkim(raw: Buffer, dnsServer: string) {
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dnsServer]);
  const r = await dkimVerify(raw, {
    resolver: (name: string, type: string) =>
      (type === 'TXT' ? resolver.resolveTxt(name) : resolver.resolve(name, type as 'A')) as Promise<never>,
  });
  return r.results;
}

/** The header block of a raw message, unfolded, as name → values. */
export function headers(raw: Buffer): Map<string, string[]> {
  const head = raw
    .toString('utf8')
    .split(/\r?\n\r?\n/)[0]!
    .replace(/\r?\n[ \t]+/g, ' ');
  const out = new Map<string, string[]>();
  for (const line of head.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const k = line.slice(0, i).toLowerCase();
    out.set(k, [...(out.get(k) ?? []), line.slice(i + 1).trim()]);
  }
  return out;
}
